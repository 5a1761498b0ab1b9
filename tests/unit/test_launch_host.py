"""generator.launch.host: `run_in_container.py benchmark|accuracy|confirm FILE [CHECKOUT]`
on the runner host: usage, one-line refusals before docker runs, and a bug's one line."""

from __future__ import annotations

from typing import NoReturn

import pytest

from generator.launch import host
from generator.launch.host import USAGE, main

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    "argv", [[], ["confirm"], ["explain", "job.json"], ["benchmark", "a", "b", "c"]]
)
def test_anything_but_a_kind_a_file_and_a_checkout_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert capsys.readouterr() == ("", USAGE + "\n")


@pytest.mark.parametrize("kind", ["benchmark", "accuracy", "confirm"])
def test_a_file_that_cannot_be_read_is_refused_in_one_line(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "job.json"
    assert main([kind, str(path)]) == 2
    assert capsys.readouterr() == (
        "",
        f"run_in_container.py: error: cannot read JSON from {path}: No such file or directory\n",
    )


def test_a_checkout_without_scripts_is_refused_for_a_confirmation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["confirm", str(tmp_path / "job.json"), str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"run_in_container.py: error: {tmp_path}: not a checkout of this repository (no "
        "scripts/ in it)\n"
    )


def test_a_bug_is_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(kind: str, path: str, given: str | None) -> NoReturn:
        msg = f"{kind} {path} {given}"
        raise KeyError(msg)

    monkeypatch.setattr(host, "start", broken)
    assert main(["accuracy", "case.json", "/code"]) == 3
    assert capsys.readouterr().err == (
        "run_in_container.py: unexpected error (a bug in the launcher): KeyError: "
        "'accuracy case.json /code'\n"
    )
