"""The JSON contract between the generator and the launcher: one matrix entry per job or
case, as TypedDicts, and the checks the launcher applies before it starts anything."""

from __future__ import annotations

import itertools
import math
import re
from typing import Any, Literal, TypedDict, cast

from generator.launch import jsonread
from generator.launch.errors import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
# The flags the launcher gives every server (commands.server_argv). SGLang's parser takes a
# unique prefix of a flag for the flag (`--hos` is `--host`), so a job may carry none of
# them, written out or abbreviated: each would rebind the server or swap its model.
LAUNCHER_FLAGS = ("--host", "--port", "--model-path", "--model")
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


class ImageBuildEntry(TypedDict):
    """A pull request's own image: built for PR `pr` from its `head` commit's `dockerfile`
    on `base` (pinned), by the PR GPU run's builder (generator/images/prbuild.py)."""

    pr: int
    head: str
    base: str
    dockerfile: str


class ImageFields(TypedDict, total=False):
    """Set by the select step when it pins the run's images (docs/images.md), and the
    model's pinned revision when the catalog pins one."""

    image_requested: str
    image_tag: str
    image_digest: str
    image_resolution: str
    image_build: ImageBuildEntry
    model_revision: str


class SpellingFields(TypedDict, total=False):
    """Set where a flag of the server's has another name in some SGLang releases:
    `[flag, name, first release, last release or ""]` (commands.spelled)."""

    server_spellings: list[list[str]]


class ServerFields(ImageFields, SpellingFields):
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


# A job or case is one matrix entry, and a GitHub job output holds at most 1 MiB.
MAX_FILE_BYTES = 1024 * 1024
# Ids name log and result files (`<id>.server.log`, `<point id>.bench.jsonl`): NAME_MAX is
# 255 bytes, and the generator keeps its ids far below this (docs/launchers.md).
MAX_ID_CHARS = 200
MAX_POINTS = 256  # a dispatch's custom points at most (generator/expand/custom.py)
MAX_TOKENS = 4096  # server or client argv tokens
MAX_TEXT_CHARS = 65536  # any one string
MAX_GPUS = 64
# Server flags whose value is a model the server loads (besides --model-path).
MODEL_FLAGS = ("--speculative-draft-model-path", "--speculative-draft-model", "--tokenizer-path")
# A model the catalog names: a hub id or a relative path of plain ASCII segments, none of
# them `.` or `..` (so `Qwen/..` never names the model cache's root).
_MODEL_PATH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9._-]+)*", re.ASCII)
_DOTS = re.compile(r"(?:^|/)\.{1,2}(?:/|$)")
MAX_MODEL_PATH = 300
_REVISION = re.compile(r"[0-9a-f]{40}")


def model_path_problem(value: str) -> str | None:
    """Why `value` cannot name a model the server loads, or None."""
    if len(value) > MAX_MODEL_PATH:
        return f"a model path is at most {MAX_MODEL_PATH} characters"
    if not _MODEL_PATH.fullmatch(value) or _DOTS.search(value):
        return (
            f"model path {value!r} is not a Hugging Face id or a relative path of ASCII "
            "letters, digits, '.', '_' and '-' (no '.' or '..' part)"
        )
    return None


def load_object(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        msg = f"cannot read JSON from {path}: {exc.strerror}"
        raise InputError(msg) from exc
    if len(raw) > MAX_FILE_BYTES:
        msg = f"{path}: more than {MAX_FILE_BYTES} bytes; a job or case is smaller"
        raise InputError(msg)
    try:
        data = jsonread.loads(raw)
    except jsonread.JsonRefused as exc:
        msg = f"cannot read JSON from {path}: {exc}"
        raise InputError(msg) from exc
    if not isinstance(data, dict):
        msg = f"{path}: the top level must be a JSON object"
        raise InputError(msg)
    return data


def _str(obj: dict[str, Any], key: str, where: str, *, ident: bool = False) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        msg = f"{where}: '{key}' must be a non-empty string"
        raise InputError(msg)
    if len(value) > (MAX_ID_CHARS if ident else MAX_TEXT_CHARS):
        limit = MAX_ID_CHARS if ident else MAX_TEXT_CHARS
        msg = f"{where}: '{key}' is {len(value)} characters; at most {limit}"
        raise InputError(msg)
    if ident and not ID_RE.fullmatch(value):
        msg = f"{where}: '{key}' {_short(value)} must match {ID_RE.pattern}"
        raise InputError(msg)
    return value


def _short(value: str) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _strings(value: object, what: str, where: str) -> list[str]:
    """A list of at most MAX_TOKENS strings of at most MAX_TEXT_CHARS, none with NUL."""
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        msg = f"{where}: {what} must be a list of strings"
        raise InputError(msg)
    if len(value) > MAX_TOKENS:
        msg = f"{where}: {what} has {len(value)} items; at most {MAX_TOKENS}"
        raise InputError(msg)
    for item in value:
        if "\0" in item or len(item) > MAX_TEXT_CHARS:
            msg = f"{where}: {what} items must be at most {MAX_TEXT_CHARS} characters, without NUL"
            raise InputError(msg)
    return value


def _number(obj: dict[str, Any], key: str, where: str, *, integer: bool) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{where}: '{key}' must be a number"
        raise InputError(msg)
    if integer and not isinstance(value, int):
        msg = f"{where}: '{key}' must be an integer"
        raise InputError(msg)
    if not math.isfinite(value):
        msg = f"{where}: '{key}' must be finite"
        raise InputError(msg)
    return float(value)


def _server_fields(obj: dict[str, Any], where: str) -> None:
    _str(obj, "id", where, ident=True)
    _str(obj, "model_path", where)
    revision = obj.get("model_revision")
    if revision is not None and not (isinstance(revision, str) and _REVISION.fullmatch(revision)):
        msg = f"{where}: 'model_revision' must be a Hugging Face commit (40 hex digits)"
        raise InputError(msg)
    built = obj.get("image_build")
    if built is not None and not (
        isinstance(built, dict)
        and set(built) == {"pr", "head", "base", "dockerfile"}
        and type(built["pr"]) is int
        and isinstance(built["head"], str)
        and _REVISION.fullmatch(built["head"])
        and all(isinstance(built[k], str) and len(built[k]) <= 1000 for k in ("base", "dockerfile"))
    ):
        msg = f"{where}: 'image_build' must name the pr, head commit, base and dockerfile"
        raise InputError(msg)
    models = [obj["model_path"]]
    args = obj.get("server_args")
    if isinstance(args, list):
        models += [v for f, v in itertools.pairwise(args) if f in MODEL_FLAGS]
    for model in models:
        problem = model_path_problem(str(model))
        if problem:
            msg = f"{where}: {problem}"
            raise InputError(msg)
    _str(obj, "spec", where)
    for key in ("image", "runner", "server_mode"):
        value = obj.get(key, "")
        if not isinstance(value, str) or len(value) > MAX_TEXT_CHARS or "\0" in value:
            msg = f"{where}: '{key}' must be a string (empty until pinned)"
            raise InputError(msg)
    gpus = _number(obj, "gpus", where, integer=True)
    if not 1 <= gpus <= MAX_GPUS:
        msg = f"{where}: 'gpus' is {gpus:g}; a server needs 1 to {MAX_GPUS} GPUs"
        raise InputError(msg)
    draft = obj.get("draft_tokens")
    if draft is not None and _number(obj, "draft_tokens", where, integer=True) < 1:
        msg = f"{where}: 'draft_tokens' must be at least 1"
        raise InputError(msg)
    if "timeout_minutes" in obj and _number(obj, "timeout_minutes", where, integer=True) < 1:
        msg = f"{where}: 'timeout_minutes' must be at least 1"
        raise InputError(msg)
    container = obj.get("container")
    if not isinstance(container, dict):
        msg = f"{where}: 'container' must be an object with a list of 'options'"
        raise InputError(msg)
    _strings(container.get("options"), "container 'options'", where)
    for key in ("model_cache", "allocation_file"):
        value = container.get(key)
        if value is not None and (not isinstance(value, str) or not value.startswith("/")):
            msg = f"{where}: container '{key}' must be an absolute path or null"
            raise InputError(msg)
    args = _strings(obj.get("server_args"), "'server_args'", where)
    for token in args:
        name = token.partition("=")[0]
        owned = [f for f in LAUNCHER_FLAGS if len(name) > 2 and f.startswith(name)]
        if name.startswith("--") and owned:
            said = "is" if name in owned else f"abbreviates {owned[0]} for SGLang, which is"
            msg = (
                f"{where}: server_args: {name} {said} set by the launcher on every server: "
                "remove it from the job"
            )
            raise InputError(msg)
    spellings = obj.get("server_spellings", [])
    if not isinstance(spellings, list) or not all(
        isinstance(s, list)
        and len(s) == 4
        and all(isinstance(t, str) for t in s)
        and s[0].startswith("--")
        and s[1].startswith("--")
        and s[2]
        for s in spellings
    ):
        msg = (
            f"{where}: 'server_spellings' must be a list of [flag, name, first release, "
            'last release or ""]'
        )
        raise InputError(msg)
    _env(obj, where)


def _env(obj: dict[str, Any], where: str) -> None:
    env = obj.get("env")
    if not isinstance(env, dict):
        msg = f"{where}: 'env' must be an object"
        raise InputError(msg)
    for key, value in env.items():
        if not ENV_KEY_RE.fullmatch(key):
            msg = f"{where}: env key {key!r} is not a valid variable name"
            raise InputError(msg)
        if not isinstance(value, str) or "\0" in value:
            msg = f"{where}: env value of {key} must be a string without NUL"
            raise InputError(msg)


def check_job(data: dict[str, Any], where: str) -> JobEntry:
    """`data` as a JobEntry, or InputError naming what is wrong."""
    _server_fields(data, where)
    client = data.get("client")
    if not isinstance(client, dict):
        msg = f"{where}: 'client' must be an object"
        raise InputError(msg)
    _str(client, "module", f"{where}: client")
    _strings(client.get("args"), "client 'args'", where)
    _env(client, f"{where}: client")
    if "turns" in data and not (isinstance(data["turns"], str) and data["turns"].startswith("/")):
        msg = f"{where}: 'turns' must be an absolute directory path"
        raise InputError(msg)
    if _number(data, "point_timeout_factor", where, integer=False) <= 0:
        msg = f"{where}: 'point_timeout_factor' must be positive"
        raise InputError(msg)
    points = data.get("points")
    if not isinstance(points, list) or not points:
        msg = f"{where}: 'points' must be a non-empty list"
        raise InputError(msg)
    if len(points) > MAX_POINTS:
        msg = f"{where}: {len(points)} points; a job runs at most {MAX_POINTS}"
        raise InputError(msg)
    seen: set[str] = set()
    for index, point in enumerate(points):
        at = f"{where}: points[{index}]"
        if not isinstance(point, dict):
            msg = f"{at} must be an object"
            raise InputError(msg)
        point_id = _str(point, "id", at, ident=True)
        if point_id in seen:
            msg = f"{at}: duplicate point id {point_id!r}"
            raise InputError(msg)
        seen.add(point_id)
        for key in ("isl", "osl", "concurrency", "num_prompts", "num_warmups"):
            if _number(point, key, at, integer=True) < (1 if key != "num_warmups" else 0):
                msg = f"{at}: '{key}' is out of range"
                raise InputError(msg)
        if not 0 < _number(point, "random_range_ratio", at, integer=False) <= 1:
            msg = f"{at}: 'random_range_ratio' must be in (0, 1]"
            raise InputError(msg)
        if _number(point, "estimate_minutes", at, integer=True) < 1:
            msg = f"{at}: 'estimate_minutes' must be at least 1"
            raise InputError(msg)
    return cast("JobEntry", data)


def check_case(data: dict[str, Any], where: str) -> CaseEntry:
    """`data` as a CaseEntry, or InputError naming what is wrong."""
    _server_fields(data, where)
    if not 0 <= _number(data, "threshold", where, integer=False) <= 1:
        msg = f"{where}: 'threshold' must be in [0, 1]"
        raise InputError(msg)
    evaluator = data.get("evaluator")
    if not isinstance(evaluator, dict):
        msg = f"{where}: 'evaluator' must be an object"
        raise InputError(msg)
    kind = evaluator.get("kind")
    at = f"{where}: evaluator"
    if _number(data, "eval_timeout_minutes", where, integer=False) <= 0:
        msg = f"{where}: 'eval_timeout_minutes' must be positive"
        raise InputError(msg)
    if data.get("min_acceptance_rate") is not None and not (
        0 <= _number(data, "min_acceptance_rate", where, integer=False) <= 1
    ):
        msg = f"{where}: 'min_acceptance_rate' must be in [0, 1]"
        raise InputError(msg)
    if kind == LM_EVAL:
        for key in ("task", "metric", "model"):
            if any(c in _str(evaluator, key, at) for c in "\n\r\0"):
                msg = f"{at}: '{key}' must be one line"
                raise InputError(msg)
        if _number(evaluator, "num_fewshot", at, integer=True) < 0:
            msg = f"{at}: 'num_fewshot' must be at least 0"
            raise InputError(msg)
        model_args = evaluator.get("model_args")
        if not isinstance(model_args, dict) or not all(
            isinstance(v, str | int | float | bool) for v in model_args.values()
        ):
            msg = f"{at}: 'model_args' must be an object of strings and numbers"
            raise InputError(msg)
        if any("," in str(v) or "=" in str(v) for v in (data["model_path"], *model_args.values())):
            msg = f"{where}: lm-eval model_args cannot carry ',' or '=' in a value"
            raise InputError(msg)
    elif kind == "sglang-few-shot-gsm8k":
        for key in ("num_shots", "num_questions", "parallel", "max_new_tokens"):
            if _number(evaluator, key, at, integer=True) < (0 if key == "num_shots" else 1):
                msg = f"{at}: '{key}' is out of range"
                raise InputError(msg)
    else:
        msg = f"{at}: 'kind' must be one of {', '.join(EVALUATOR_KINDS)}"
        raise InputError(msg)
    return cast("CaseEntry", data)
