"""Result records (schema `sglang-ci/record/1`, generator/results/schemas): one file per
benchmark point and per accuracy case, with identity, metrics, the exact commands,
provenance, timings and a validity verdict. Only valid records enter a baseline.

The record's rules live here once, on the launcher's standard-library side: the schema
id, the metrics a valid point needs, the validity rule, the acceptance need and the
infrastructure words. `generator.results` imports them.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.launch.contract import CaseEntry, JobEntry, PointEntry, ServerEntry

SCHEMA = "sglang-ci/record/1"
# Any JSON whose `schema` starts with this claims to be a record (of some version).
SCHEMA_FAMILY = "sglang-ci/record/"
# The `spec` of a server without speculative decoding.
SPEC_NONE = "none"
# The validity reason of a record that failed for the runner, not the server; an error
# that failed for the runner starts with `infrastructure` too.
INFRASTRUCTURE = "infrastructure error"
INFRASTRUCTURE_PREFIX = "infrastructure"
# Metrics copied from the client's result line under the same name.
COPIED = (
    "request_throughput",
    "input_throughput",
    "output_throughput",
    "mean_ttft_ms",
    "median_ttft_ms",
    "p99_ttft_ms",
    "mean_tpot_ms",
    "median_tpot_ms",
    "p99_tpot_ms",
    "mean_itl_ms",
    "median_itl_ms",
    "p99_itl_ms",
    "mean_e2e_latency_ms",
    "median_e2e_latency_ms",
    "p99_e2e_latency_ms",
)
# A valid point has every one of these, finite.
REQUIRED = ("output_throughput", "median_ttft_ms", "median_tpot_ms", "total_token_throughput")


# Lines of a tool's output that say nothing about why it failed: blank, progress bars,
# traceback frames and their source lines, separators.
_NOISE = re.compile(
    r"^\s*$|\d+%\||it/s\]|s/it\]|^\s*File \"|^\s{2,}\S|^Traceback \(most recent"
    r"|^During handling of|^The above exception|^[\s^~=*#-]+$"
)
_ERRORISH = re.compile(
    r"^[\w.]*(Error|Exception|Exit|Interrupt|Fault)\b|error|fatal|denied", re.IGNORECASE
)
MAX_ERROR_CHARS = 300


def error_line(error: str | None) -> str | None:
    """An error as one line: its first line (`<tool> exited with status 1:`) and, when a
    tail of the tool's output follows, that tail's last meaningful line: the last one that
    reads as an error (`ConnectionRefusedError: ...`), else the last that is not noise."""
    if not error:
        return None
    head, *rest = str(error).strip().splitlines() or [""]
    lines = [line.strip() for line in rest if not _NOISE.search(line)]
    pick = next((line for line in reversed(lines) if _ERRORISH.search(line)), None)
    if pick is None and lines:
        pick = lines[-1]
    text = f"{head.strip()} {pick}" if pick else head.strip()
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


def finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        return None
    return number if math.isfinite(number) else None


def measure(value: object) -> float | None:
    """A throughput, latency, count or duration: finite and not negative, else None."""
    number = finite(value)
    return number if number is not None and number >= 0 else None


def whole(value: object) -> int | None:
    """A count of requests: a non-negative integer (not a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def acceptance_rate(accept_length: float | None, draft_tokens: int | None) -> float | None:
    """(acceptance length - 1) / tokens drafted per step: 0 accepts nothing, 1 everything."""
    if accept_length is None or not draft_tokens:
        return None
    return round((accept_length - 1) / draft_tokens, 6)


def line_problems(line: Mapping[str, object]) -> list[str]:
    """What is wrong with the values of a client's result line: a metric that is not a
    number or is negative, a request count that is not a whole number. (NaN and infinity,
    which the client writes when nothing completed, are not problems: they become null.)"""
    problems = []
    for key in (*COPIED, "duration", "total_throughput", "total_token_throughput"):
        value = line.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            problems.append(f"{key} {_short(value)} is not a number")
        elif value < 0:
            problems.append(f"{key} {value} is negative")
    if line.get("completed") is not None and whole(line["completed"]) is None:
        problems.append(f"completed {_short(line['completed'])} is not a whole number")
    return problems


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def point_metrics(
    line: Mapping[str, object] | None, gpus: int, accept_length: float | None, draft: int | None
) -> dict[str, Any]:
    """The record's metrics from the client's result line (absent: every metric null). A
    value that is missing, not a number, not finite or negative is null."""
    data = line or {}
    out: dict[str, Any] = {key: measure(data.get(key)) for key in COPIED}
    duration = measure(data.get("duration"))
    total = measure(data.get("total_token_throughput", data.get("total_throughput")))
    if total is None and duration:
        tokens = [measure(data.get(k)) for k in ("total_input_tokens", "total_output_tokens")]
        if None not in tokens:
            total = finite(sum(t for t in tokens if t is not None) / duration)
    tpot = out["median_tpot_ms"]
    out.update(
        completed=whole(data.get("completed")),
        duration_s=duration,
        total_token_throughput=total,
        output_throughput_per_gpu=_per(out["output_throughput"], gpus),
        total_token_throughput_per_gpu=_per(total, gpus),
        interactivity=finite(1000.0 / tpot) if tpot else None,
        accept_length=accept_length,
        acceptance_rate=acceptance_rate(accept_length, draft),
    )
    return out


def _per(value: float | None, gpus: int) -> float | None:
    return None if value is None or gpus < 1 else value / gpus


def is_mtp(spec: str | None) -> bool:
    """A speculative-decoding (MTP) server."""
    return spec is not None and spec != SPEC_NONE


def needs_acceptance(spec: str | None, osl: int | None = None) -> bool:
    """A speculative-decoding server reports an acceptance length once it has decoded; a
    point of one output token decodes nothing."""
    return is_mtp(spec) and (osl is None or osl > 1)


def is_infrastructure(reason: str | None, error: str | None) -> bool:
    """The record failed for the infrastructure (runner, network, registry), not for the
    server: its validity reason or its error starts with `infrastructure`."""
    return any((text or "").startswith(INFRASTRUCTURE_PREFIX) for text in (reason, error))


@dataclass(frozen=True, kw_only=True)
class Common:
    """What every record of one job or case shares."""

    served_model_path: str
    server_argv: list[str]
    server_env: dict[str, str]
    provenance: dict[str, Any]


def _common(entry: ServerEntry, common: Common, error: str | None) -> dict[str, Any]:
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


def point_validity(
    *,
    status: str,
    completed: int | None,
    num_prompts: int,
    metrics: Mapping[str, Any],
    spec: str | None,
    osl: int,
    restarted: bool = False,
    infrastructure: str | None = None,
) -> tuple[bool, str | None]:
    """Whether a point's numbers may stand for its server, and why not.

    The first rule that applies gives the reason: an infrastructure error; a status other
    than `ok`; a server restart during the point; fewer requests completed than sent; a
    required metric (REQUIRED) missing or non-finite; an MTP point (spec not `none`, more
    than one output token) without an acceptance length."""
    if infrastructure:
        return False, f"{INFRASTRUCTURE}: {infrastructure}"
    if status != "ok":
        return False, f"status {status}"
    if restarted:
        return False, "the server restarted during the point"
    if completed != num_prompts:
        return False, f"{completed} of {num_prompts} requests completed"
    bad = [key for key in REQUIRED if finite(metrics.get(key)) is None]
    if bad:
        return False, f"non-finite or missing {', '.join(bad)}"
    if needs_acceptance(spec, osl) and finite(metrics.get("accept_length")) is None:
        return False, "no acceptance length from a speculative-decoding server"
    return True, None


def point_record(
    job: JobEntry,
    point: PointEntry,
    *,
    status: str,
    error: str | None,
    metrics: dict[str, Any],
    client_argv: list[str],
    client_version: str | None,
    common: Common,
    timings: dict[str, Any],
    restarted: bool = False,
    infrastructure: str | None = None,
) -> dict[str, Any]:
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
    status: str,
    error: str | None,
    metrics: dict[str, Any],
    evaluator_argv: list[str],
    evaluator_version: str | None,
    common: Common,
    timings: dict[str, Any],
    infrastructure: str | None = None,
) -> dict[str, Any]:
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


def timings(
    *,
    started_at: str | None,
    ended_at: str | None,
    wall_time_s: float | None,
    server_start_s: float | None,
    download_s: float | None,
    estimate_minutes: int | None,
) -> dict[str, Any]:
    return {
        "started_at": started_at,
        "ended_at": ended_at,
        "wall_time_s": wall_time_s,
        "server_start_s": server_start_s,
        "download_s": download_s,
        "estimate_minutes": estimate_minutes,
    }


def text(record: Mapping[str, Any]) -> str:
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


def write(path: Path, record: Mapping[str, Any]) -> None:
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
