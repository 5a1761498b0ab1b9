"""Catalog sections built straight from validated YAML: models, estimates, layouts, pairs."""

from __future__ import annotations

from typing import Any

from generator.catalog.catalog_types import Pair
from generator.catalog.server_types import Estimates, Model, Parallel, PointModel, StartupRule
from generator.core.field_checks import model_path_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.reader import Reader

# A point's timeout is its estimate times this factor unless the catalog says otherwise.
POINT_TIMEOUT_FACTOR = 3.0


def parse_pair(text: str) -> Pair:
    isl, osl = text.split("x")
    return Pair(isl=int(isl), osl=int(osl))


def build_models(r: Reader, raw: Mapping[str, Any] | None) -> dict[str, Model]:
    for name, m in (raw or {}).items():
        problem = model_path_problem(str(m["path"]))
        if problem:
            raise r.fail(problem, ["models", name, "path"])
    return {
        str(name): Model(
            name=str(name),
            path=str(m["path"]),
            family=str(m["family"]),
            precision=str(m["precision"]),
            params_b=number(m.get("params_b")),
            startup_minutes=number(m.get("startup_minutes")),
            loc=r.loc(["models", name]),
            max_context_length=(
                None if m.get("max_context_length") is None else int(m["max_context_length"])
            ),
            revision=str(m["revision"]) if m.get("revision") is not None else None,
        )
        for name, m in (raw or {}).items()
    }


def number(raw: float | None) -> float | None:
    return None if raw is None else float(raw)


def build_estimates(r: Reader, raw: Mapping[str, Any]) -> Estimates:
    """The declared estimates; the start-up rules go up in size and end with a catch-all."""
    path: list[str | int] = ["estimates"]
    rules = tuple(
        StartupRule(up_to_params_b=number(x.get("up_to_params_b")), minutes=float(x["minutes"]))
        for x in raw["startup"]
    )
    for i, rule in enumerate(rules):
        last = i == len(rules) - 1
        if (rule.up_to_params_b is None) != last:
            msg = "every start-up rule but the last needs up_to_params_b; the last has none"
            raise r.fail(msg, [*path, "startup", i])
        if i and rule.up_to_params_b is not None:
            before = rules[i - 1].up_to_params_b
            if before is not None and rule.up_to_params_b <= before:
                msg = (
                    f"start-up rules must go up in size ({rule.up_to_params_b:g} after {before:g})"
                )
                raise r.fail(msg, [*path, "startup", i])
    timeout = int(raw["job_timeout_minutes"])
    bound = float(raw["max_job_minutes"])
    if bound > timeout:
        msg = f"max_job_minutes {bound:g} is longer than job_timeout_minutes {timeout}"
        raise r.fail(msg, [*path, "max_job_minutes"])
    point = raw["point"]
    return Estimates(
        max_job_minutes=bound,
        job_timeout_minutes=timeout,
        point_timeout_factor=float(raw.get("point_timeout_factor", POINT_TIMEOUT_FACTOR)),
        startup=rules,
        point=PointModel(
            overhead_minutes=float(point["overhead_minutes"]),
            prefill_tokens_per_gpu_second=float(point["prefill_tokens_per_gpu_second"]),
            decode_step_ms=float(point["decode_step_ms"]),
            decode_step_ms_per_request=float(point["decode_step_ms_per_request"]),
        ),
        loc=r.loc(path),
    )


def build_parallel(raw: Mapping[str, Any]) -> Parallel:
    return Parallel(
        tp=int(raw["tp"]),
        dp=int(raw.get("dp", 1)),
        ep=int(raw.get("ep", 1)),
        dp_attention=bool(raw.get("dp_attention", True)),
    )
