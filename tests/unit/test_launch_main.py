"""generator.launch.main: the launchers' entry point (`benchmark JOB` | `accuracy CASE`):
usage, and bad input or knobs refused in one line, exit 2, before anything starts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from generator.launch.main import USAGE, main
from tests.helpers import ROOT
from tests.launchers.support import fixture_job, small_points

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

KNOBS = ("READY_TIMEOUT_S", "SGLANG_PORT", "MAX_SERVER_RESTARTS", "MODEL_CACHE", "RESULTS_DIR")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The launch directory, with none of the launcher's knobs set."""
    monkeypatch.chdir(tmp_path)
    for name in KNOBS:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def qwen_job(concurrencies: list[int], **point: Any) -> dict[str, Any]:
    """The fixture's OOB Qwen TP4 job (4 GPUs) with small points at these concurrencies."""
    return small_points(fixture_job("--preset", "all-qwen"), concurrencies, **point)


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv", [[], ["benchmark"], ["explain", "job.json"], ["accuracy", "a.json", "b.json"]]
)
def test_anything_but_a_mode_and_a_file_is_a_usage_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(ROOT, argv) == 2
    assert capsys.readouterr() == ("", USAGE + "\n")


def test_an_unreadable_file_is_one_line_naming_it(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(ROOT, ["accuracy", str(here / "case.json")]) == 2
    assert capsys.readouterr() == (
        "",
        (
            f"run_accuracy.sh: error: cannot read JSON from {here / 'case.json'}: No such file "
            "or directory\n"
        ),
    )


def test_an_invalid_job_exits_2_before_starting_a_server(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    job = qwen_job([1])
    job["env"] = {"NOT-A-NAME": "1"}
    path = write_json(here / "job.json", job)
    assert main(ROOT, ["benchmark", str(path)]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == (
        "",
        f"run_benchmark.sh: error: {path}: env key 'NOT-A-NAME' is not a valid variable name\n",
    )
    assert not (here / "results").exists()


@pytest.mark.parametrize(
    ("knob", "value"),
    [
        ("READY_TIMEOUT_S", "soon"),
        ("SGLANG_PORT", "30000x"),
        ("MAX_SERVER_RESTARTS", "-1"),
        ("MODEL_CACHE", "models"),
    ],
)
def test_an_invalid_knob_exits_2_before_starting_a_server(
    here: Path,
    knob: str,
    value: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(knob, value)
    assert main(ROOT, ["benchmark", str(write_json(here / "job.json", qwen_job([1])))]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"run_benchmark.sh: error: {knob} must be ")
    assert err.count("\n") == 1
    assert not (here / "results").exists()
