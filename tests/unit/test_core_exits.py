"""generator.core.exits: one error type carrying its exit status, one line per way out."""

from __future__ import annotations

from generator.core.exits import (
    BUG,
    FAILED,
    INFRASTRUCTURE,
    OK,
    TRACEBACK_FILE,
    Infrastructure,
    InputError,
    LaunchError,
    NotReady,
    bug,
    error,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def test_every_expected_failure_is_a_launch_error_with_its_exit_status() -> None:
    assert (OK, FAILED, INFRASTRUCTURE, BUG) == (0, 1, 2, 3)
    for kind in (InputError, Infrastructure, NotReady):
        assert issubclass(kind, LaunchError)
        assert kind("x").return_code == INFRASTRUCTURE
    assert NotReady("port taken", infrastructure=True).infrastructure is True


def test_an_expected_failure_is_one_line_and_its_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert error("run_benchmark.sh", InputError("job.json: 'id' must be a string")) == 2
    assert capsys.readouterr() == ("", "run_benchmark.sh: error: job.json: 'id' must be a string\n")


def raised() -> ValueError:
    try:
        msg = "boom"
        raise ValueError(msg)
    except ValueError as exc:
        return exc


def test_a_bug_is_one_line_naming_the_file_that_holds_its_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "results" / "logs"
    assert bug("run_accuracy.sh", raised(), logs) == BUG
    path = logs / TRACEBACK_FILE
    assert capsys.readouterr() == (
        "",
        (
            "run_accuracy.sh: unexpected error (a bug in the launcher): ValueError: boom; the "
            f"traceback is in {path}\n"
        ),
    )
    text = path.read_text(encoding="utf-8")
    assert text.startswith("Traceback (most recent call last):\n")
    assert text.endswith("ValueError: boom\n")


def test_a_bug_with_no_log_directory_to_write_to_is_still_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert bug("run_in_container.py", raised(), blocker / "logs") == BUG
    assert bug("run_in_container.py", raised(), None) == BUG
    line = "run_in_container.py: unexpected error (a bug in the launcher): ValueError: boom\n"
    assert capsys.readouterr() == ("", line * 2)
