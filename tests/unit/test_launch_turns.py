"""generator.launch.turns: one A/B side's turns, given through files in a directory the
runner and the side's container share (`ready`, `<point>.go`, `<point>.done`, `stop`)."""

from __future__ import annotations

from generator.launch.turns import READY, STOP, TurnGate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_without_a_directory_every_turn_is_given_at_once(tmp_path: Path) -> None:
    gate = TurnGate(None, 60.0)
    gate.ready()
    assert gate.wait("p1") is True
    gate.done("p1")
    assert list(tmp_path.iterdir()) == []


def test_the_side_marks_ready_and_each_point_done(tmp_path: Path) -> None:
    gate = TurnGate(str(tmp_path), 60.0)
    gate.ready()
    gate.done("p1-r0")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p1-r0.done", READY]


def test_a_point_runs_once_its_go_file_is_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "p1-r0.go").write_text("", encoding="utf-8")
    assert TurnGate(str(tmp_path), 60.0).wait("p1-r0") is True
    assert capsys.readouterr().out.endswith("] point p1-r0: waiting for its turn\n")


def test_a_stopped_side_runs_no_more_points(tmp_path: Path) -> None:
    (tmp_path / STOP).write_text("", encoding="utf-8")
    assert TurnGate(str(tmp_path), 60.0).wait("p2-r1") is False
    (tmp_path / "p2-r1.go").write_text("", encoding="utf-8")
    assert TurnGate(str(tmp_path), 60.0).wait("p2-r1") is True
