"""The rules of a result record (schema `sglang-ci/record/1`, generator/results/schemas; its
document: record_doc.py), on the launcher's standard-library side, once: the schema id, the
metrics a valid point needs, the validity rule, the acceptance need and the infrastructure
words. `generator.results` imports them.
"""

from __future__ import annotations

import math
import re

from generator.core.logtext import clip
from generator.core.record_types import CopiedMetrics, PointMetrics

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

SCHEMA = "sglang-ci/record/1"
# Any JSON whose `schema` starts with this claims to be a record (of some version).
SCHEMA_FAMILY = "sglang-ci/record/"
# The `spec` of a server without speculative decoding.
SPEC_NONE = "none"
# The validity reason of a record that failed for the runner, not the server; an error
# that failed for the runner starts with `infrastructure` too.
INFRASTRUCTURE = "infrastructure error"
INFRASTRUCTURE_PREFIX = "infrastructure"
# Metrics copied from the client's result line under the same name (its TypedDict's keys).
COPIED = tuple(CopiedMetrics.__annotations__)
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
            problems.append(f"{key} {clip(repr(value), 40)} is not a number")
        elif value < 0:
            problems.append(f"{key} {value} is negative")
    if line.get("completed") is not None and whole(line["completed"]) is None:
        problems.append(f"completed {clip(repr(line['completed']), 40)} is not a whole number")
    return problems


def point_metrics(
    line: Mapping[str, object] | None, gpus: int, accept_length: float | None, draft: int | None
) -> PointMetrics:
    """The record's metrics from the client's result line (absent: every metric null). A
    value that is missing, not a number, not finite or negative is null."""
    data = line or {}

    def copied(key: str) -> float | None:
        return measure(data.get(key))

    duration = copied("duration")
    total = measure(data.get("total_token_throughput", data.get("total_throughput")))
    if total is None and duration:
        tokens = [copied(k) for k in ("total_input_tokens", "total_output_tokens")]
        if None not in tokens:
            total = finite(sum(t for t in tokens if t is not None) / duration)
    output, tpot = copied("output_throughput"), copied("median_tpot_ms")
    return PointMetrics(
        request_throughput=copied("request_throughput"),
        input_throughput=copied("input_throughput"),
        output_throughput=output,
        mean_ttft_ms=copied("mean_ttft_ms"),
        median_ttft_ms=copied("median_ttft_ms"),
        p99_ttft_ms=copied("p99_ttft_ms"),
        mean_tpot_ms=copied("mean_tpot_ms"),
        median_tpot_ms=tpot,
        p99_tpot_ms=copied("p99_tpot_ms"),
        mean_itl_ms=copied("mean_itl_ms"),
        median_itl_ms=copied("median_itl_ms"),
        p99_itl_ms=copied("p99_itl_ms"),
        mean_e2e_latency_ms=copied("mean_e2e_latency_ms"),
        median_e2e_latency_ms=copied("median_e2e_latency_ms"),
        p99_e2e_latency_ms=copied("p99_e2e_latency_ms"),
        completed=whole(data.get("completed")),
        duration_s=duration,
        total_token_throughput=total,
        output_throughput_per_gpu=_per(output, gpus),
        total_token_throughput_per_gpu=_per(total, gpus),
        interactivity=finite(1000.0 / tpot) if tpot else None,
        accept_length=accept_length,
        acceptance_rate=acceptance_rate(accept_length, draft),
    )


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


def point_validity(
    *,
    status: str,
    completed: int | None,
    num_prompts: int,
    metrics: Mapping[str, object],
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
