"""The markdown each launcher prints and appends to `$GITHUB_STEP_SUMMARY` (and to
`$RESULTS_DIR/summary.md`, which travels with the results): the provenance block first,
then one row per point or the case's gates."""

from __future__ import annotations

from generator.core.console import log, say
from generator.core.logtext import md_code, md_text
from generator.core.record_rules import error_line
from generator.launch.provenance_probe import markdown as provenance_markdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from generator.core.contract import JobEntry
    from generator.core.record_types import CaseRecord, PointRecord, Provenance

SUMMARY_FILE = "summary.md"
_VERDICTS = {
    "passed": "✅ passed",
    "failed": "❌ failed",
    "error": "⚠️ error",
    "timeout": "⏱️ timeout",
    "cancelled": "⏹️ cancelled",
}


def cell(value: object, digits: int = 2) -> str:
    """A table cell: '-' for null, numbers as they are (floats with `digits` decimals),
    text as `md_text` writes it: nothing of a record's text is read as Markdown."""
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return str(value)
    return md_text(value, table=True)


def first_line(error: object) -> str:
    """An error as one cell: its first line and the tool's last meaningful line
    (record_rules.error_line), at most 300 characters."""
    return cell(error_line(str(error)) or "")


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None else cell(seconds / 60, 1)


def benchmark(
    job: JobEntry, records: Sequence[PointRecord], starts: int, provenance: Provenance
) -> str:
    """One row per point, and measured against estimated minutes (per point and for the
    server start-up), so the catalog's estimates can be refined."""
    timings = [r["timings"] for r in records]
    startup = next((t["server_start_s"] for t in timings if t["server_start_s"] is not None), None)
    download = next((t["download_s"] for t in timings if t["download_s"] is not None), None)
    rows = [
        f"### Benchmark: {cell(job['display'])} ({md_code(job['id'])})",
        "",
        provenance_markdown(provenance).rstrip("\n"),
        "",
        (
            f"Server mode `{job['server_mode']}` · server starts: {starts}"
            f" · model download {_minutes(download)} min"
            f" · start-up {_minutes(startup)} min (estimated {cell(job['startup_minutes'])})"
        ),
        "",
        (
            "| Point | ISL | OSL | Conc | Status | Output tok/s/GPU | Total tok/s | TTFT p50 (ms) "
            "| TPOT p50 (ms) | ITL p50 (ms) | Accept len | Minutes | Estimated |"
        ),
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        m, p = r["metrics"], r["point"]
        cells = [
            f"`{r['id']}`",
            cell(p["isl"]),
            cell(p["osl"]),
            cell(p["concurrency"]),
            cell(r["status"]) + ("" if r["validity"]["valid"] else " (invalid)"),
            cell(m["output_throughput_per_gpu"]),
            cell(m["total_token_throughput"]),
            cell(m["median_ttft_ms"]),
            cell(m["median_tpot_ms"]),
            cell(m["median_itl_ms"]),
            cell(m["accept_length"]),
            _minutes(r["timings"]["wall_time_s"]),
            cell(r["timings"]["estimate_minutes"]),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    failed = [r for r in records if r["error"]]
    if failed:
        rows += ["", *(f"- `{r['id']}`: {first_line(r['error'])}" for r in failed)]
    return "\n".join(rows) + "\n\n"


def accuracy(data: CaseRecord) -> str:
    m = data["metrics"]
    cells = [
        cell(data["evaluator"]["name"]),
        md_code(m["metric"], table=True),
        cell(m["score"], 4),
        cell(m["threshold"], 4),
        cell(m["acceptance_rate"], 3),
        cell(m["min_acceptance_rate"], 3),
        _VERDICTS.get(data["status"], cell(data["status"])),
        cell(data["timings"]["wall_time_s"] and data["timings"]["wall_time_s"] / 60, 1),
    ]
    rows = [
        f"### Accuracy: {cell(data['name'])} ({md_code(data['id'])})",
        "",
        provenance_markdown(data["provenance"]).rstrip("\n"),
        "",
        (
            "| Evaluator | Metric | Score | Threshold | Acceptance | Min acceptance | Result "
            "| Minutes |"
        ),
        "|---|---|---:|---:|---:|---:|---|---:|",
        "| " + " | ".join(cells) + " |",
    ]
    if data["error"]:
        rows += ["", f"Error: {first_line(data['error'])}"]
    return "\n".join(rows) + "\n\n"


def publish(text: str, step_summary: Path | None, results_dir: Path | None) -> None:
    """Print the section, and append it to the step summary and to the results' summary
    (`results_dir` None: none)."""
    say(text.removesuffix("\n"))
    for target in (step_summary, None if results_dir is None else results_dir / SUMMARY_FILE):
        if target is None:
            continue
        try:
            with target.open("a", encoding="utf-8") as out:
                out.write(text)
        except OSError as exc:
            log(f"warning: cannot append the summary to {target}: {exc}")
