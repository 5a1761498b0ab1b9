"""The checks the launcher applies to a job or case file before it starts anything."""

from __future__ import annotations

from typing import Any, cast

from generator.launch.contract import EVALUATOR_KINDS, LM_EVAL
from generator.launch.exits import InputError
from generator.launch.field_checks import MAX_POINTS, check_env, number, string, strings
from generator.launch.server_check import server_fields

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.launch.contract import CaseEntry, JobEntry


def check_job(data: dict[str, Any], where: str) -> JobEntry:
    """`data` as a JobEntry, or InputError naming what is wrong."""
    server_fields(data, where)
    client = data.get("client")
    if not isinstance(client, dict):
        msg = f"{where}: 'client' must be an object"
        raise InputError(msg)
    string(client, "module", f"{where}: client")
    strings(client.get("args"), "client 'args'", where)
    check_env(client, f"{where}: client")
    if "turns" in data and not (isinstance(data["turns"], str) and data["turns"].startswith("/")):
        msg = f"{where}: 'turns' must be an absolute directory path"
        raise InputError(msg)
    if number(data, "point_timeout_factor", where, integer=False) <= 0:
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
        point_id = string(point, "id", at, ident=True)
        if point_id in seen:
            msg = f"{at}: duplicate point id {point_id!r}"
            raise InputError(msg)
        seen.add(point_id)
        for key in ("isl", "osl", "concurrency", "num_prompts", "num_warmups"):
            if number(point, key, at, integer=True) < (1 if key != "num_warmups" else 0):
                msg = f"{at}: '{key}' is out of range"
                raise InputError(msg)
        if not 0 < number(point, "random_range_ratio", at, integer=False) <= 1:
            msg = f"{at}: 'random_range_ratio' must be in (0, 1]"
            raise InputError(msg)
        if number(point, "estimate_minutes", at, integer=True) < 1:
            msg = f"{at}: 'estimate_minutes' must be at least 1"
            raise InputError(msg)
    return cast("JobEntry", data)


def check_case(data: dict[str, Any], where: str) -> CaseEntry:
    """`data` as a CaseEntry, or InputError naming what is wrong."""
    server_fields(data, where)
    if not 0 <= number(data, "threshold", where, integer=False) <= 1:
        msg = f"{where}: 'threshold' must be in [0, 1]"
        raise InputError(msg)
    evaluator = data.get("evaluator")
    if not isinstance(evaluator, dict):
        msg = f"{where}: 'evaluator' must be an object"
        raise InputError(msg)
    kind = evaluator.get("kind")
    at = f"{where}: evaluator"
    if number(data, "eval_timeout_minutes", where, integer=False) <= 0:
        msg = f"{where}: 'eval_timeout_minutes' must be positive"
        raise InputError(msg)
    if data.get("min_acceptance_rate") is not None and not (
        0 <= number(data, "min_acceptance_rate", where, integer=False) <= 1
    ):
        msg = f"{where}: 'min_acceptance_rate' must be in [0, 1]"
        raise InputError(msg)
    if kind == LM_EVAL:
        for key in ("task", "metric", "model"):
            if any(c in string(evaluator, key, at) for c in "\n\r\0"):
                msg = f"{at}: '{key}' must be one line"
                raise InputError(msg)
        if number(evaluator, "num_fewshot", at, integer=True) < 0:
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
            if number(evaluator, key, at, integer=True) < (0 if key == "num_shots" else 1):
                msg = f"{at}: '{key}' is out of range"
                raise InputError(msg)
    else:
        msg = f"{at}: 'kind' must be one of {', '.join(EVALUATOR_KINDS)}"
        raise InputError(msg)
    return cast("CaseEntry", data)
