"""The checks of a job or case file (its server's fields, a job's points, a case's evaluator)."""

from __future__ import annotations

import itertools
import re
from typing import Any, cast

from generator.core import field_checks as field
from generator.core.contract import CLIENT_VARIABLES, EVALUATOR_KINDS, LM_EVAL
from generator.core.exits import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import CaseEntry, JobEntry

# The flags the launcher gives every server (commands.server_argv). SGLang's parser takes a
# unique prefix of a flag for the flag (`--hos` is `--host`), so a job may carry none of
# them, written out or abbreviated: each would rebind the server or swap its model.
LAUNCHER_FLAGS = ("--host", "--port", "--model-path", "--model")
_REVISION = re.compile(r"[0-9a-f]{40}")


def server_fields(obj: dict[str, Any], where: str) -> None:
    field.string(obj, "id", where, ident=True)
    field.string(obj, "model_path", where)
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
        models += [v for f, v in itertools.pairwise(args) if f in field.MODEL_FLAGS]
    for model in models:
        problem = field.model_path_problem(str(model))
        if problem:
            msg = f"{where}: {problem}"
            raise InputError(msg)
    field.string(obj, "spec", where)
    for key in ("image", "runner", "server_mode"):
        value = obj.get(key, "")
        if not isinstance(value, str) or len(value) > field.MAX_TEXT_CHARS or "\0" in value:
            msg = f"{where}: '{key}' must be a string (empty until pinned)"
            raise InputError(msg)
    gpus = field.number(obj, "gpus", where, integer=True)
    if not 1 <= gpus <= field.MAX_GPUS:
        msg = f"{where}: 'gpus' is {gpus:g}; a server needs 1 to {field.MAX_GPUS} GPUs"
        raise InputError(msg)
    draft = obj.get("draft_tokens")
    if draft is not None and field.number(obj, "draft_tokens", where, integer=True) < 1:
        msg = f"{where}: 'draft_tokens' must be at least 1"
        raise InputError(msg)
    if "timeout_minutes" in obj and field.number(obj, "timeout_minutes", where, integer=True) < 1:
        msg = f"{where}: 'timeout_minutes' must be at least 1"
        raise InputError(msg)
    container = obj.get("container")
    if not isinstance(container, dict):
        msg = f"{where}: 'container' must be an object with a list of 'options'"
        raise InputError(msg)
    field.strings(container.get("options"), "container 'options'", where)
    for key in ("model_cache", "allocation_file"):
        value = container.get(key)
        if value is not None and (not isinstance(value, str) or not value.startswith("/")):
            msg = f"{where}: container '{key}' must be an absolute path or null"
            raise InputError(msg)
    args = field.strings(obj.get("server_args"), "'server_args'", where)
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
    field.check_env(obj, where)


def check_job(data: dict[str, Any], where: str) -> JobEntry:
    """`data` as a JobEntry, or InputError naming what is wrong."""
    server_fields(data, where)
    client = data.get("client")
    if not isinstance(client, dict):
        msg = f"{where}: 'client' must be an object"
        raise InputError(msg)
    field.string(client, "module", f"{where}: client")
    for arg in field.strings(client.get("args"), "client 'args'", where):
        for name in re.findall(r"\{(\w+)\}", arg):
            if name not in CLIENT_VARIABLES:
                msg = f"{where}: client 'args': unknown variable '{{{name}}}' in {arg!r}"
                raise InputError(msg)
    field.check_env(client, f"{where}: client")
    if "turns" in data and not (isinstance(data["turns"], str) and data["turns"].startswith("/")):
        msg = f"{where}: 'turns' must be an absolute directory path"
        raise InputError(msg)
    if field.number(data, "point_timeout_factor", where, integer=False) <= 0:
        msg = f"{where}: 'point_timeout_factor' must be positive"
        raise InputError(msg)
    points = data.get("points")
    if not isinstance(points, list) or not points:
        msg = f"{where}: 'points' must be a non-empty list"
        raise InputError(msg)
    if len(points) > field.MAX_POINTS:
        msg = f"{where}: {len(points)} points; a job runs at most {field.MAX_POINTS}"
        raise InputError(msg)
    seen: set[str] = set()
    for index, point in enumerate(points):
        at = f"{where}: points[{index}]"
        if not isinstance(point, dict):
            msg = f"{at} must be an object"
            raise InputError(msg)
        point_id = field.string(point, "id", at, ident=True)
        if point_id in seen:
            msg = f"{at}: duplicate point id {point_id!r}"
            raise InputError(msg)
        seen.add(point_id)
        for key in ("isl", "osl", "concurrency", "num_prompts", "num_warmups"):
            if field.number(point, key, at, integer=True) < (1 if key != "num_warmups" else 0):
                msg = f"{at}: '{key}' is out of range"
                raise InputError(msg)
        if not 0 < field.number(point, "random_range_ratio", at, integer=False) <= 1:
            msg = f"{at}: 'random_range_ratio' must be in (0, 1]"
            raise InputError(msg)
        if field.number(point, "estimate_minutes", at, integer=True) < 1:
            msg = f"{at}: 'estimate_minutes' must be at least 1"
            raise InputError(msg)
    return cast("JobEntry", data)


def check_case(data: dict[str, Any], where: str) -> CaseEntry:
    """`data` as a CaseEntry, or InputError naming what is wrong."""
    server_fields(data, where)
    if not 0 <= field.number(data, "threshold", where, integer=False) <= 1:
        msg = f"{where}: 'threshold' must be in [0, 1]"
        raise InputError(msg)
    evaluator = data.get("evaluator")
    if not isinstance(evaluator, dict):
        msg = f"{where}: 'evaluator' must be an object"
        raise InputError(msg)
    kind = evaluator.get("kind")
    at = f"{where}: evaluator"
    if field.number(data, "eval_timeout_minutes", where, integer=False) <= 0:
        msg = f"{where}: 'eval_timeout_minutes' must be positive"
        raise InputError(msg)
    if data.get("min_acceptance_rate") is not None and not (
        0 <= field.number(data, "min_acceptance_rate", where, integer=False) <= 1
    ):
        msg = f"{where}: 'min_acceptance_rate' must be in [0, 1]"
        raise InputError(msg)
    if kind == LM_EVAL:
        for key in ("task", "metric", "model"):
            if any(c in field.string(evaluator, key, at) for c in "\n\r\0"):
                msg = f"{at}: '{key}' must be one line"
                raise InputError(msg)
        if field.number(evaluator, "num_fewshot", at, integer=True) < 0:
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
            if field.number(evaluator, key, at, integer=True) < (0 if key == "num_shots" else 1):
                msg = f"{at}: '{key}' is out of range"
                raise InputError(msg)
    else:
        msg = f"{at}: 'kind' must be one of {', '.join(EVALUATOR_KINDS)}"
        raise InputError(msg)
    return cast("CaseEntry", data)
