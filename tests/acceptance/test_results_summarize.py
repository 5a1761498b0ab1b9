"""`sglang-ci results summarize`: the run-wide table a summary job writes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from generator.cli import main
from tests.results_gen import Point, Run, Shape, case_record, point_record, sweep, write_run

RUN = Run(day=5)
MTP = Point(config="ds-mtp", spec="mtp", draft_tokens=3)


def summarize(tmp_path: Path, *args: str) -> Result:
    return CliRunner().invoke(
        main, ["--root", str(tmp_path), "results", "summarize", *args], catch_exceptions=False
    )


def make_run(tmp_path: Path) -> Path:
    points = sweep()
    records = [point_record(RUN, p) for p in points[1:]]
    records.append(
        point_record(RUN, points[0], Shape(status="server-died", extra={"completed": None}))
    )
    records.append(point_record(RUN, MTP, Shape(accept_length=None)))
    records.append(case_record(RUN))
    records.append(case_record(RUN, "gsm8k-low", score=0.91))
    return write_run(tmp_path, RUN, records, name="run")


def test_the_json_counts_every_point_and_case(tmp_path: Path) -> None:
    root = make_run(tmp_path)
    result = summarize(tmp_path, str(root), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["points"] == {"total": 7, "valid": 5, "status": {"ok": 6, "server-died": 1}}
    assert data["cases"] == {"total": 2, "status": {"failed": 1, "passed": 1}}
    assert [(f["subject"], f["reason"]) for f in data["failures"]] == [
        ("ds-fp8-tp8", "status server-died"),
        ("ds-mtp", "no acceptance length from a speculative-decoding server"),
        ("gsm8k-low", "status failed"),
    ]
    assert [(g["gate"], g["subject"]) for g in data["gates"]] == [
        ("accuracy", "gsm8k-low"),
        ("acceptance", "ds-mtp"),
    ]


def test_the_markdown_puts_failures_before_the_tables(tmp_path: Path) -> None:
    root = make_run(tmp_path)
    text = summarize(tmp_path, str(root)).stdout
    assert text.startswith("## Run run\n\n- Benchmark points: 7 (ok 6, server-died 1); valid 5\n")
    assert (
        text.index("### Failed gates")
        < text.index("### What failed")
        < text.index("### Benchmark points")
    )
    assert "- acceptance: point `ds-mtp-1024-1024-4`: MTP point without acceptance length" in text
    assert (
        "| ds-fp8-tp8 | 1024x1024 | 8 | ok | 111.1 | 222.2 | 150.0 / 450.0 | 11.25 / 16.88 "
        "| 10.69 / 22.50 | - |"
    ) in text


def test_a_large_summary_is_cut_and_the_full_text_written(tmp_path: Path) -> None:
    root = make_run(tmp_path)
    full = tmp_path / "full.md"
    result = summarize(tmp_path, str(root), "--out", str(full), "--max-bytes", "1500")
    assert len(result.stdout.encode()) <= 1500
    assert result.stdout.endswith(f"more lines; the full text is in `{full}`._\n")
    assert "### Benchmark points" in full.read_text()
    assert full.read_text().count("| ds-fp8-tp8 | 1024x1024 |") == 6


def test_several_directories_are_one_run_and_broken_files_are_warnings(tmp_path: Path) -> None:
    a = write_run(tmp_path, RUN, [point_record(RUN, Point())], name="a")
    b = write_run(tmp_path, RUN, [case_record(RUN)], name="b")
    (b / "bad.json").write_text('{"schema": "sglang-ci/record/1", "kind": "case", "id": 3}')
    result = summarize(tmp_path, str(a), str(b), "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["run"], data["points"]["total"], data["cases"]["total"]) == ("current", 1, 1)
    problem = f"{b}/bad.json: record: 'model_path' is a required property"
    assert data["problems"] == [problem]
    assert result.stderr == f"warning: {problem}\n"


def test_a_run_without_records_is_summarized(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = summarize(tmp_path, str(tmp_path / "empty"))
    assert result.exit_code == 0
    assert result.stdout.startswith("## Run (no records)\n\n- Benchmark points: 0 (none)")
