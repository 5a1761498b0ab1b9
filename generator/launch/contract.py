"""The JSON contract between the generator and the launcher: one matrix entry per job or
case, as TypedDicts, and the checks the launcher applies before it starts anything."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Literal, TypedDict, cast

from generator.launch.errors import InputError

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
ENV_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# The evaluators a case can name (the catalog's schema lists the same two).
EvaluatorKind = Literal["lm-eval", "sglang-few-shot-gsm8k"]
LM_EVAL: EvaluatorKind = "lm-eval"
FEW_SHOT_GSM8K: EvaluatorKind = "sglang-few-shot-gsm8k"
EVALUATOR_KINDS: tuple[EvaluatorKind, ...] = (LM_EVAL, FEW_SHOT_GSM8K)


class PointEntry(TypedDict):
    """One benchmark point of a job: a (ISL/OSL, concurrency) cell of its config."""

    id: str
    isl: int
    osl: int
    concurrency: int
    random_range_ratio: float
    num_prompts: int
    num_warmups: int
    estimate_minutes: int


class ClientEntry(TypedDict):
    """The benchmark client as the catalog declares it: `{variable}` placeholders in
    `args` are filled per point by `commands.bench_argv`."""

    name: str
    module: str
    args: list[str]
    env: dict[str, str]


class ContainerEntry(TypedDict):
    """The runner contract of the job's label (docs/runners.md)."""

    model_cache: str | None
    allocation_file: str | None
    options: list[str]


class ImageFields(TypedDict, total=False):
    """Set by the select step when it pins the run's images (docs/images.md)."""

    image_requested: str
    image_tag: str
    image_digest: str
    image_resolution: str


class ServerFields(ImageFields):
    """What every job and case carries about its server."""

    id: str
    model_path: str
    runner: str
    image: str
    server_mode: str
    server_args: list[str]
    env: dict[str, str]
    server_fingerprint: str
    spec: str
    draft_tokens: int | None
    gpus: int
    container: ContainerEntry
    timeout_minutes: int


class TurnFields(TypedDict, total=False):
    """Set only in a side job of an A/B whose two servers run at once (abjob.py): the
    directory where each point waits for its turn (turns.py)."""

    turns: str


class JobEntry(ServerFields, TurnFields):
    """One benchmark job: one server, swept over its points."""

    suite: str
    config: str
    display: str
    dashboard_model: str
    startup_minutes: int
    estimate_minutes: int
    point_timeout_factor: float  # a point's timeout: its estimate_minutes times this
    client: ClientEntry
    points: list[PointEntry]


class EvaluatorEntry(TypedDict, total=False):
    """How a case is scored; `kind` says which of the other keys are set."""

    kind: EvaluatorKind
    # lm-eval
    task: str
    model: str
    num_fewshot: int
    metric: str
    model_args: dict[str, str | int | float | bool]
    # sglang-few-shot-gsm8k
    num_shots: int
    num_questions: int
    parallel: int
    max_new_tokens: int


class CaseEntry(ServerFields):
    """One accuracy case on one image, at one level."""

    case: str
    name: str
    suite: str
    benchmark: str | None
    level: str
    threshold: float
    min_acceptance_rate: float | None
    eval_timeout_minutes: float
    evaluator: EvaluatorEntry


ServerEntry = JobEntry | CaseEntry


def load_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read JSON from {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise InputError(f"{path}: the top level must be a JSON object")
    return data


def _str(obj: dict[str, Any], key: str, where: str, *, ident: bool = False) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InputError(f"{where}: '{key}' must be a non-empty string")
    if ident and not ID_RE.fullmatch(value):
        raise InputError(f"{where}: '{key}' {value!r} must match {ID_RE.pattern}")
    return value


def _number(obj: dict[str, Any], key: str, where: str, *, integer: bool) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{where}: '{key}' must be a number")
    if integer and not isinstance(value, int):
        raise InputError(f"{where}: '{key}' must be an integer")
    if not math.isfinite(value):
        raise InputError(f"{where}: '{key}' must be finite")
    return float(value)


def _server_fields(obj: dict[str, Any], where: str) -> None:
    _str(obj, "id", where, ident=True)
    _str(obj, "model_path", where)
    _str(obj, "spec", where)
    _number(obj, "gpus", where, integer=True)
    draft = obj.get("draft_tokens")
    if draft is not None:
        _number(obj, "draft_tokens", where, integer=True)
    container = obj.get("container")
    if not isinstance(container, dict) or not isinstance(container.get("options"), list):
        raise InputError(f"{where}: 'container' must be an object with a list of 'options'")
    args = obj.get("server_args")
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise InputError(f"{where}: 'server_args' must be a list of strings")
    if any("\0" in a for a in args):
        raise InputError(f"{where}: 'server_args' tokens must not contain NUL")
    _env(obj, where)


def _env(obj: dict[str, Any], where: str) -> None:
    env = obj.get("env")
    if not isinstance(env, dict):
        raise InputError(f"{where}: 'env' must be an object")
    for key, value in env.items():
        if not ENV_KEY_RE.fullmatch(key):
            raise InputError(f"{where}: env key {key!r} is not a valid variable name")
        if not isinstance(value, str) or "\0" in value:
            raise InputError(f"{where}: env value of {key} must be a string without NUL")


def check_job(data: dict[str, Any], where: str) -> JobEntry:
    """`data` as a JobEntry, or InputError naming what is wrong."""
    _server_fields(data, where)
    client = data.get("client")
    if not isinstance(client, dict):
        raise InputError(f"{where}: 'client' must be an object")
    _str(client, "module", f"{where}: client")
    args = client.get("args")
    if not isinstance(args, list) or not all(isinstance(a, str) and "\0" not in a for a in args):
        raise InputError(f"{where}: client 'args' must be a list of strings")
    _env(client, f"{where}: client")
    if "turns" in data and not (isinstance(data["turns"], str) and data["turns"].startswith("/")):
        raise InputError(f"{where}: 'turns' must be an absolute directory path")
    if _number(data, "point_timeout_factor", where, integer=False) <= 0:
        raise InputError(f"{where}: 'point_timeout_factor' must be positive")
    points = data.get("points")
    if not isinstance(points, list) or not points:
        raise InputError(f"{where}: 'points' must be a non-empty list")
    seen: set[str] = set()
    for index, point in enumerate(points):
        at = f"{where}: points[{index}]"
        if not isinstance(point, dict):
            raise InputError(f"{at} must be an object")
        point_id = _str(point, "id", at, ident=True)
        if point_id in seen:
            raise InputError(f"{at}: duplicate point id {point_id!r}")
        seen.add(point_id)
        for key in ("isl", "osl", "concurrency", "num_prompts", "num_warmups"):
            if _number(point, key, at, integer=True) < (1 if key != "num_warmups" else 0):
                raise InputError(f"{at}: '{key}' is out of range")
        _number(point, "random_range_ratio", at, integer=False)
        if _number(point, "estimate_minutes", at, integer=True) < 1:
            raise InputError(f"{at}: 'estimate_minutes' must be at least 1")
    return cast(JobEntry, data)


def check_case(data: dict[str, Any], where: str) -> CaseEntry:
    """`data` as a CaseEntry, or InputError naming what is wrong."""
    _server_fields(data, where)
    _number(data, "threshold", where, integer=False)
    evaluator = data.get("evaluator")
    if not isinstance(evaluator, dict):
        raise InputError(f"{where}: 'evaluator' must be an object")
    kind = evaluator.get("kind")
    at = f"{where}: evaluator"
    if _number(data, "eval_timeout_minutes", where, integer=False) <= 0:
        raise InputError(f"{where}: 'eval_timeout_minutes' must be positive")
    if data.get("min_acceptance_rate") is not None:
        _number(data, "min_acceptance_rate", where, integer=False)
    if kind == LM_EVAL:
        for key in ("task", "metric", "model"):
            _str(evaluator, key, at)
        _number(evaluator, "num_fewshot", at, integer=True)
        model_args = evaluator.get("model_args")
        if not isinstance(model_args, dict):
            raise InputError(f"{at}: 'model_args' must be an object")
        if any("," in str(v) or "=" in str(v) for v in (data["model_path"], *model_args.values())):
            raise InputError(f"{where}: lm-eval model_args cannot carry ',' or '=' in a value")
    elif kind == "sglang-few-shot-gsm8k":
        for key in ("num_shots", "num_questions", "parallel", "max_new_tokens"):
            _number(evaluator, key, at, integer=True)
    else:
        raise InputError(f"{at}: 'kind' must be one of {', '.join(EVALUATOR_KINDS)}")
    return cast(CaseEntry, data)
