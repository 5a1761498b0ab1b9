"""generator.launch.sink: where the records and the summary go, RESULTS_DIR or, when it
cannot be written, a fallback directory that keeps every record so far, else the job log."""

from __future__ import annotations

import json
from typing import cast

from generator.launch.knobs import read_knobs
from generator.launch.process import Supervisor
from generator.launch.sink import FALLBACK_PREFIX, Sink

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from generator.core.record_types import Record


def make(tmp_path: Path, **environ: str) -> Sink:
    knobs = read_knobs({"RUNNER_TEMP": "temp", **environ}, tmp_path, tmp_path)
    (tmp_path / "temp").mkdir(exist_ok=True)
    return Sink(knobs, Supervisor(1.0))


def test_a_writable_results_dir_and_log_dir_are_made_and_left_empty(tmp_path: Path) -> None:
    sink = make(tmp_path)
    assert sink.prepare() is None
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == ["logs"]
    assert list((tmp_path / "results" / "logs").iterdir()) == []
    sink.write("p1.json", cast("Record", {"id": "p1", "value": float("nan")}))
    assert json.loads((tmp_path / "results" / "p1.json").read_text()) == {"id": "p1", "value": None}
    assert (sink.folder, sink.problem) == (tmp_path / "results", None)


def test_a_results_dir_that_cannot_be_made_moves_to_a_fallback_under_runner_temp(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "results").write_text("a file", encoding="utf-8")
    sink = make(tmp_path)
    reason = f"RESULTS_DIR {tmp_path / 'results'} cannot be written: File exists"
    assert sink.prepare() == reason
    assert sink.problem == reason
    assert sink.folder is not None
    assert (sink.folder.parent, sink.folder.name[: len(FALLBACK_PREFIX)]) == (
        tmp_path / "temp",
        FALLBACK_PREFIX,
    )
    assert capsys.readouterr().err == (
        f"sglang-ci launcher: error: {reason}; every record and the summary go to {sink.folder}\n"
    )


def test_a_log_dir_that_cannot_be_made_is_named_but_the_results_stay(tmp_path: Path) -> None:
    (tmp_path / "logs").write_text("a file", encoding="utf-8")
    sink = make(tmp_path, LOG_DIR="logs")
    assert sink.prepare() == f"LOG_DIR {tmp_path / 'logs'} cannot be written: File exists"
    assert (sink.folder, sink.problem) == (tmp_path / "results", None)


def test_a_results_dir_lost_mid_run_moves_every_record_so_far(tmp_path: Path) -> None:
    sink = make(tmp_path, LOG_DIR="logs")
    assert sink.prepare() is None
    sink.write("p1.json", cast("Record", {"id": "p1"}))
    (tmp_path / "results" / "p1.json").unlink()
    (tmp_path / "results").rmdir()
    (tmp_path / "results").write_text("now a file", encoding="utf-8")
    sink.write("p2.json", cast("Record", {"id": "p2"}))
    assert sink.problem is not None
    assert sink.problem.startswith(f"cannot write {tmp_path / 'results' / 'p2.json'}: ")
    assert sink.folder is not None
    assert sorted(p.name for p in sink.folder.iterdir()) == ["p1.json", "p2.json"]


def test_without_any_folder_each_record_is_printed_between_markers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(**_kwargs: object) -> str:
        raise OSError

    monkeypatch.setattr("generator.launch.sink.tempfile.mkdtemp", refused)
    (tmp_path / "results").write_text("a file", encoding="utf-8")
    sink = make(tmp_path)
    sink.prepare()
    assert sink.folder is None
    capsys.readouterr()
    sink.write("p1.json", cast("Record", {"id": "p1"}))
    assert capsys.readouterr().out == (
        '===== record p1.json =====\n{\n  "id": "p1"\n}\n===== end of record p1.json =====\n'
    )


def test_the_summary_says_where_the_results_went(tmp_path: Path) -> None:
    sink = make(tmp_path, GITHUB_STEP_SUMMARY="step.md")
    sink.prepare()
    sink.publish("## Job\n\n")
    assert sink.published
    assert (tmp_path / "step.md").read_text() == "## Job\n\n"
    assert (tmp_path / "results" / "summary.md").read_text() == "## Job\n\n"
    (tmp_path / "moved").write_text("a file", encoding="utf-8")
    moved = make(tmp_path, RESULTS_DIR="moved", GITHUB_STEP_SUMMARY="step2.md")
    moved.prepare()
    moved.publish("## Job\n\n")
    assert (tmp_path / "step2.md").read_text() == (
        f"## Job\n\n**Results not in RESULTS_DIR**: RESULTS_DIR {tmp_path / 'moved'} cannot be "
        f"written: File exists; every record is in `{moved.folder}`.\n\n"
    )
