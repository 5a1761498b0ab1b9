"""`sglang-ci dispatch ...` (generator/cli/dispatch_commands.py): the options' own checks
and what each command hands the select step (dispatch/step_outputs.py, tested there and in
tests/acceptance/test_verify.py)."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner, Result

from generator.cli import dispatch_commands
from generator.cli.sglang_ci import main

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """What each command hands its step function, in place of selecting anything."""
    got: list[tuple[str, dict[str, Any]]] = []

    def keep(name: str) -> Any:  # noqa: ANN401 (a stand-in of three signatures)
        def step(*args: Any, **kwargs: Any) -> None:
            got.append((name, {"args": args[1:], **kwargs}))

        return step

    for name in ("write_selected", "write_pr", "write_built"):
        monkeypatch.setattr(dispatch_commands, name, keep(name))
    return got


def dispatch(tmp_path: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--root", str(tmp_path), "dispatch", *args])


def test_an_empty_input_is_no_input(
    tmp_path: Path, handed: list[tuple[str, dict[str, Any]]]
) -> None:
    # a workflow passes every dispatch input, empty when not given
    result = dispatch(tmp_path, "benchmark", "--event", "workflow_dispatch", "--suite", "",
                      "--preset", "all-qwen", "--image", "")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert handed == [("write_selected", {
        "args": ("benchmark",), "event": "workflow_dispatch", "schedule": None, "suite": None,
        "preset": "all-qwen", "configs": None, "points": None, "mode": None, "image": None,
    })]  # fmt: skip
    assert dispatch(tmp_path, "accuracy", "--level", "pr", "--cases", "").exit_code == 0
    assert handed[1] == ("write_selected", {"args": ("accuracy",), "level": "pr", "cases": None})


def test_an_event_given_twice_is_refused(tmp_path: Path) -> None:
    result = dispatch(tmp_path, "benchmark", "--event", "schedule", "--event", "push")
    assert result.exit_code == 2
    assert "Invalid value for '--event': given 2 times ('schedule', 'push'); give it once" in (
        result.output
    )


@pytest.mark.parametrize(
    ("args", "refused"),
    [
        (["--pr-base", "main"], "--pr-base and --default-branch go together"),
        (["--default-branch", "main"], "--pr-base and --default-branch go together"),
        (["--build"], "--build needs the pull request's number (--pr)"),
    ],
)
def test_the_pr_options_that_go_together(
    tmp_path: Path, handed: list[tuple[str, dict[str, Any]]], args: list[str], refused: str
) -> None:
    result = dispatch(tmp_path, "pr", "--base", "origin/main", "--head", "abc", *args)
    assert result.exit_code == 2
    assert f"Error: {refused}" in result.output
    assert handed == []


def test_a_pull_request_is_handed_with_its_options(
    tmp_path: Path, handed: list[tuple[str, dict[str, Any]]]
) -> None:
    result = dispatch(tmp_path, "pr", "--base", "origin/main", "--head", "abc", "--pr", "7",
                      "--build", "--pr-base", "main", "--default-branch", "main")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert handed == [("write_pr", {
        "args": (), "base": "origin/main", "head": "abc", "benchmark": False, "pr_base": "main",
        "default_branch": "main", "number": 7, "build": True,
    })]  # fmt: skip
    refused = dispatch(tmp_path, "pr", "--base", "b", "--head", "h", "--pr", "0")
    assert refused.exit_code == 2
    assert "Invalid value for '--pr': 0 is not in the range x>=1." in refused.output
