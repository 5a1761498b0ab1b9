"""generator.launch.summary: the Markdown section each launcher prints and appends to the
step summary and the results' summary.md (the provenance block, a row per point or the
case's gates)."""

from __future__ import annotations

from typing import Any, cast

from generator.launch import summary
from generator.launch.provenance_probe import markdown
from tests.unit.test_launch_provenance_probe import provenance

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from generator.core.contract import JobEntry
    from generator.core.record_types import CaseRecord, PointRecord

JOB = cast(
    "JobEntry",
    {
        "id": "qwen-tp4",
        "display": "Qwen3 TP4",
        "server_mode": "sglang-atom",
        "startup_minutes": 25,
    },
)
METRICS = {
    "output_throughput_per_gpu": 812.345,
    "total_token_throughput": 6500.0,
    "median_ttft_ms": 120.5,
    "median_tpot_ms": 9.87,
    "median_itl_ms": 9.5,
    "accept_length": None,
}


def record(point_id: str, **fields: Any) -> PointRecord:
    data = {
        "id": point_id,
        "point": {"isl": 1024, "osl": 512, "concurrency": 8},
        "status": "ok",
        "validity": {"valid": True},
        "metrics": METRICS,
        "error": None,
        "timings": {
            "server_start_s": 600.0,
            "download_s": None,
            "wall_time_s": 90.0,
            "estimate_minutes": 2,
        },
        **fields,
    }
    return cast("PointRecord", data)


def test_a_cell_is_a_dash_a_number_or_text_markdown_cannot_read() -> None:
    assert summary.cell(None) == "-"
    assert summary.cell(1.23456) == "1.23"
    assert summary.cell(1.23456, 4) == "1.2346"
    assert summary.cell(7) == "7"
    assert summary.cell("ok") == "ok"
    assert summary.cell("a|b *x*") == "`a\\|b *x*`"


def test_an_error_is_its_first_line_and_the_tool_s_last_error_line() -> None:
    error = "client exited with status 1:\nloading\nConnectionRefusedError: [Errno 111]\nbye"
    assert summary.first_line(error) == (
        "`client exited with status 1: ConnectionRefusedError: [Errno 111]`"
    )
    assert summary.first_line("x" * 400) == "x" * 297 + "..."


def test_a_benchmark_section_has_a_row_per_point_and_the_failures_below() -> None:
    failed = record(
        "qwen-tp4-c16",
        status="failed",
        validity={"valid": False},
        metrics=dict.fromkeys(METRICS),
        error="sglang.bench_serving exited with status 1",
        timings={
            "server_start_s": None,
            "download_s": 30.0,
            "wall_time_s": None,
            "estimate_minutes": 3,
        },
    )
    text = summary.benchmark(JOB, [record("qwen-tp4-c8"), failed], 2, provenance())
    assert text == (
        "### Benchmark: Qwen3 TP4 (`qwen-tp4`)\n\n"
        + markdown(provenance())
        + "Server mode `sglang-atom` · server starts: 2 · model download 0.5 min · start-up "
        "10.0 min (estimated 25)\n\n"
        "| Point | ISL | OSL | Conc | Status | Output tok/s/GPU | Total tok/s | TTFT p50 (ms) "
        "| TPOT p50 (ms) | ITL p50 (ms) | Accept len | Minutes | Estimated |\n"
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        "| `qwen-tp4-c8` | 1024 | 512 | 8 | ok | 812.35 | 6500.00 | 120.50 | 9.87 | 9.50 | - "
        "| 1.5 | 2 |\n"
        "| `qwen-tp4-c16` | 1024 | 512 | 8 | failed (invalid) | - | - | - | - | - | - | - | 3 |\n"
        "\n"
        "- `qwen-tp4-c16`: sglang.bench_serving exited with status 1\n\n"
    )


def test_a_benchmark_without_records_shows_no_times() -> None:
    text = summary.benchmark(JOB, [], 0, provenance())
    assert "server starts: 0 · model download - min · start-up - min (estimated 25)" in text
    assert text.endswith("|---:|---:|\n\n")


def case_record(**fields: Any) -> CaseRecord:
    data = {
        "id": "ds-tp8",
        "name": "DeepSeek R1 TP8",
        "evaluator": {"name": "lm-eval gsm8k"},
        "metrics": {
            "metric": "exact_match,strict-match",
            "score": 0.95123,
            "threshold": 0.93,
            "acceptance_rate": None,
            "min_acceptance_rate": None,
        },
        "status": "passed",
        "timings": {"wall_time_s": 300.0},
        "error": None,
        "provenance": provenance(),
        **fields,
    }
    return cast("CaseRecord", data)


def test_an_accuracy_section_is_one_row_of_the_gates() -> None:
    assert summary.accuracy(case_record()) == (
        "### Accuracy: DeepSeek R1 TP8 (`ds-tp8`)\n\n"
        + markdown(provenance())
        + "| Evaluator | Metric | Score | Threshold | Acceptance | Min acceptance | Result "
        "| Minutes |\n"
        "|---|---|---:|---:|---:|---:|---|---:|\n"
        "| lm-eval gsm8k | `exact_match,strict-match` | 0.9512 | 0.9300 | - | - | ✅ passed "
        "| 5.0 |\n\n"
    )


def test_an_accuracy_error_is_named_under_its_row() -> None:
    text = summary.accuracy(
        case_record(
            status="odd", error="evaluator exited with status 2", timings={"wall_time_s": None}
        )
    )
    assert "| - | - | odd | - |\n\nError: evaluator exited with status 2\n\n" in text
    assert "| ⏱️ timeout |" in summary.accuracy(case_record(status="timeout"))


def test_the_section_is_printed_and_appended_to_both_summaries(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    step = tmp_path / "step.md"
    step.write_text("before\n", encoding="utf-8")
    summary.publish("## S\n\n", step, tmp_path)
    summary.publish("## T\n\n", None, tmp_path)
    assert step.read_text(encoding="utf-8") == "before\n## S\n\n"
    assert (tmp_path / summary.SUMMARY_FILE).read_text(encoding="utf-8") == "## S\n\n## T\n\n"
    assert capsys.readouterr().out == "## S\n\n## T\n\n"


def test_a_summary_that_cannot_be_appended_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary.publish("## S\n", tmp_path, None)
    out = capsys.readouterr().out
    assert out.startswith("## S\n[launcher ")
    assert f"] warning: cannot append the summary to {tmp_path}: " in out
