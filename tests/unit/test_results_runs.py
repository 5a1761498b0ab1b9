"""generator/results/runs.py: run and history directories on disk."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from generator.results.record import ResultsError
from generator.results.runs import (
    MANIFEST,
    MANIFEST_SCHEMA,
    check_run_name,
    history_dirs,
    history_run,
    json_files,
    name_of,
    started,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def history(tmp_path: Path) -> Path:
    """`run-a`, admitted (a manifest, a compact file); `run-b`, a record, a reserved name
    at its top, a hidden directory; `.git`, skipped."""
    h = tmp_path / "history"
    for folder in ("run-a", "run-b/job", "run-b/.hidden", ".git"):
        (h / folder).mkdir(parents=True)
    (h / "run-a" / MANIFEST).write_text(json.dumps({"schema": MANIFEST_SCHEMA}))
    (h / "run-a" / "records-0.parquet").write_text("")
    record = {"timings": {"started_at": "2026-11-01T05:00:00"}}
    (h / "run-b" / "job" / "p.json").write_text(json.dumps(record))
    (h / "run-b" / "verdicts.json").write_text("# an earlier version's Markdown")
    (h / "run-b" / ".hidden" / "x.json").write_text("{}")
    return h


def test_a_history_lists_its_run_directories_but_the_one_compared(history: Path) -> None:
    assert [p.name for p in history_dirs(history)] == ["run-a", "run-b"]
    assert [p.name for p in history_dirs(history, exclude="run-a")] == ["run-b"]


def test_an_admitted_run_is_read_from_its_compact_file_another_from_its_files(
    history: Path,
) -> None:
    admitted = history_run(history / "run-a")
    assert (admitted.files, admitted.compact) == ((), str(history / "run-a" / "records-0.parquet"))
    assert admitted.manifest == str(history / "run-a" / MANIFEST)
    assert history_run(history / "run-b").files == (str(history / "run-b" / "job" / "p.json"),)
    assert json_files(history / "run-b") == (str(history / "run-b" / "job" / "p.json"),)


def test_a_runs_start_is_its_first_records(history: Path) -> None:
    assert started(history / "run-b") == datetime(2026, 11, 1, 5, tzinfo=UTC)
    assert started(history / "run-a") is None


def test_a_run_is_named_by_the_history_else_its_one_directory(history: Path) -> None:
    assert name_of([history / "run-b"]) == "run-b"
    assert name_of([history / "run-a", history / "run-b"]) == "current"
    assert name_of([history / "run-a"], "night-1") == "night-1"
    with pytest.raises(ResultsError, match=r"'\.\./x': a run name is letters, digits"):
        check_run_name("../x")
