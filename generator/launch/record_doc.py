"""A result record's document (schema sglang-ci/record/1; its shape: core/record_types.py, its
rules: record_rules.py), written."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass

from generator.core.record_rules import INFRASTRUCTURE, SCHEMA, point_validity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import CaseEntry, JobEntry, PointEntry, ServerEntry
    from generator.core.record_types import (
        CaseMetrics,
        CaseRecord,
        CaseStatus,
        PointMetrics,
        PointRecord,
        PointStatus,
        Provenance,
        RecordFields,
        Timings,
    )


@dataclass(frozen=True, kw_only=True)
class Common:
    """What every record of one job or case shares."""

    served_model_path: str
    server_argv: list[str]
    server_env: dict[str, str]
    provenance: Provenance


def _common(entry: ServerEntry, common: Common, error: str | None) -> RecordFields:
    return {
        "schema": SCHEMA,
        "model_path": entry["model_path"],
        "served_model_path": common.served_model_path,
        "server_mode": entry["server_mode"],
        "runner_label": entry["runner"],
        "server_fingerprint": entry["server_fingerprint"],
        "spec": entry["spec"],
        "draft_tokens": entry["draft_tokens"],
        "gpus": entry["gpus"],
        "error": error,
        "server": {"argv": common.server_argv, "env": common.server_env},
        "provenance": common.provenance,
    }


def point_record(
    job: JobEntry,
    point: PointEntry,
    *,
    status: PointStatus,
    error: str | None,
    metrics: PointMetrics,
    client_argv: list[str],
    client_version: str | None,
    common: Common,
    timings: Timings,
    restarted: bool = False,
    infrastructure: str | None = None,
) -> PointRecord:
    valid, reason = point_validity(
        status=status,
        completed=metrics["completed"],
        num_prompts=point["num_prompts"],
        metrics=metrics,
        spec=job["spec"],
        osl=point["osl"],
        restarted=restarted,
        infrastructure=infrastructure,
    )
    return {
        **_common(job, common, error),
        "kind": "point",
        "id": point["id"],
        "job_id": job["id"],
        "suite": job["suite"],
        "config": job["config"],
        "display": job["display"],
        "dashboard_model": job["dashboard_model"],
        "point": {
            "pair": f"{point['isl']}x{point['osl']}",
            "isl": point["isl"],
            "osl": point["osl"],
            "concurrency": point["concurrency"],
            "random_range_ratio": point["random_range_ratio"],
            "num_prompts": point["num_prompts"],
            "num_warmups": point["num_warmups"],
        },
        "status": status,
        "validity": {"valid": valid, "reason": reason},
        "metrics": metrics,
        "client": {"name": job["client"]["module"], "version": client_version, "argv": client_argv},
        "timings": timings,
    }


def case_record(
    case: CaseEntry,
    *,
    status: CaseStatus,
    error: str | None,
    metrics: CaseMetrics,
    evaluator_argv: list[str],
    evaluator_version: str | None,
    common: Common,
    timings: Timings,
    infrastructure: str | None = None,
) -> CaseRecord:
    valid = status in ("passed", "failed")
    reason = f"{INFRASTRUCTURE}: {infrastructure}" if infrastructure else f"status {status}"
    return {
        **_common(case, common, error),
        "kind": "case",
        "id": case["id"],
        "case": case["case"],
        "name": case["name"],
        "suite": case["suite"],
        "benchmark": case["benchmark"],
        "status": status,
        "validity": {"valid": valid, "reason": None if valid else reason},
        "metrics": metrics,
        "evaluator": {
            "name": case["evaluator"]["kind"],
            "version": evaluator_version,
            "argv": evaluator_argv,
        },
        "timings": timings,
    }


def text(record: Mapping[str, object]) -> str:
    """The record as JSON; a non-finite number (never valid JSON) becomes null."""
    return json.dumps(_finite_only(record), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _finite_only(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {key: _finite_only(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite_only(item) for item in value]
    return value


def write(path: Path, record: Mapping[str, object]) -> None:
    """Write atomically, so a reader never sees half a record; OSError when it cannot be
    written (nothing is left behind then)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as out:
            out.write(text(record))
        tmp.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
