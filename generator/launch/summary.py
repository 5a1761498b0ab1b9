"""The markdown section each launcher prints and appends to `$GITHUB_STEP_SUMMARY`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from generator.launch.console import log
from generator.launch.contract import JobEntry
from generator.launch.results import CaseResult, PointResult

_VERDICTS = {"passed": "✅ passed", "failed": "❌ below threshold", "error": "⚠️ error"}


def cell(value: object, digits: int = 2) -> str:
    """A table cell: '-' for null, floats with `digits` decimals, '|' escaped."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None else cell(seconds / 60, 1)


def benchmark(job: JobEntry, results: Sequence[PointResult], starts: int) -> str:
    """One row per point, and measured against estimated minutes (per point and for the
    server start-up), so the catalog's estimates can be refined."""
    startup = next((r["server_start_s"] for r in results if r["server_start_s"] is not None), None)
    rows = [
        f"### Benchmark: {cell(job.get('display') or job['id'])} (`{job['id']}`)",
        "",
        f"Image `{cell(job.get('image'))}` · runner `{cell(job.get('runner'))}`"
        f" · server starts: {starts} · start-up {_minutes(startup)} min"
        f" (estimated {cell(job.get('startup_minutes'))})",
        "",
        "| Point | ISL | OSL | Conc | Status | Req/s | Output tok/s | TTFT p50 (ms) "
        "| TPOT p50 (ms) | ITL p50 (ms) | E2E p50 (ms) | Minutes | Estimated |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        cells = [
            f"`{result['point_id']}`",
            cell(result["isl"]),
            cell(result["osl"]),
            cell(result["concurrency"]),
            cell(result["status"]),
            cell(result["request_throughput"]),
            cell(result["output_throughput"]),
            cell(result["median_ttft_ms"]),
            cell(result["median_tpot_ms"]),
            cell(result["median_itl_ms"]),
            cell(result["median_e2e_latency_ms"]),
            _minutes(result["wall_time_s"]),
            cell(result["estimate_minutes"]),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n\n"


def accuracy(result: CaseResult) -> str:
    cells = [
        cell(result["evaluator"]),
        f"`{cell(result['metric'])}`",
        cell(result["score"], 4),
        cell(result["threshold"], 4),
        _VERDICTS[result["status"]],
        cell(result["invalid_rate"], 3),
        cell(result["latency_s"], 1),
    ]
    rows = [
        f"### Accuracy: {cell(result['name'] or result['case_id'])} (`{result['case_id']}`)",
        "",
        "| Evaluator | Metric | Score | Threshold | Result | Invalid | Latency (s) |",
        "|---|---|---:|---:|---|---:|---:|",
        "| " + " | ".join(cells) + " |",
    ]
    if result["error"]:
        rows += ["", f"Error: {cell(result['error'].splitlines()[0])}"]
    return "\n".join(rows) + "\n\n"


def publish(text: str, step_summary: Path | None) -> None:
    """Print the section, and append it to the step summary when there is one."""
    print(text, end="", flush=True)
    if step_summary is None:
        return
    try:
        with step_summary.open("a", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        log(f"warning: cannot append to GITHUB_STEP_SUMMARY: {exc}")
