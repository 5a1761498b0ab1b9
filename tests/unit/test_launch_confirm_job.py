"""generator.launch.confirm_job: an A/B confirmation job on the runner: refused in one line
before any container, its ab.json written where RESULTS_DIR says, its exit status, and a
cancel that stops the sides' containers."""

from __future__ import annotations

import json
import signal
import subprocess
from typing import Any, cast

import pytest

from generator.core.exits import FAILED, INFRASTRUCTURE, OK
from generator.launch import confirm_job
from generator.launch.confirm_job import main_confirm, run_confirmation
from generator.launch.process import Cancelled
from tests.unit.test_core_abjob import job

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.abjob import ConfirmationEntry
    from generator.launch.ab_side import SideContext

SUMMARY = {"schema": "sglang-ci/ab/1", "verdict": "cleared"}


def write_job(tmp_path: Path, data: dict[str, Any]) -> str:
    path = tmp_path / "job.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_label_s_model_cache_missing_here_is_refused_before_any_container(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = job()
    data["container"]["model_cache"] = str(tmp_path / "models")
    assert main_confirm(write_job(tmp_path, data), {"GITHUB_WORKSPACE": str(tmp_path)}) == 2
    assert capsys.readouterr().err == (
        f"run_in_container.py: error: the runner label's model cache {tmp_path / 'models'} is "
        "not a directory here\n"
    )


def test_an_invalid_confirmation_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_job(tmp_path, job(repeats=1))
    assert main_confirm(path, {}) == 2
    assert capsys.readouterr().err == (
        f"run_in_container.py: error: {path}: confirmation: 'repeats' must be an integer from "
        "2 to 10\n"
    )


def steps(monkeypatch: pytest.MonkeyPatch, *, failed: int = 0, broken: bool = False) -> None:
    def run_steps(ctx: SideContext) -> dict[str, Any]:
        ctx.failed_turns, ctx.broken = failed, broken
        return SUMMARY

    monkeypatch.setattr(confirm_job, "run_steps", run_steps)


def run(tmp_path: Path, environ: dict[str, str]) -> int:
    return run_confirmation(
        cast("ConfirmationEntry", job()),
        environ=environ,
        workspace=str(tmp_path),
        scratch=tmp_path,
        devices=[],
        passed=[],
        container="sglang-ci-r1",
    )


@pytest.mark.parametrize(
    ("failed", "broken", "code"), [(0, False, OK), (2, False, FAILED), (0, True, INFRASTRUCTURE)]
)
def test_ab_json_is_written_and_the_status_says_how_the_turns_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failed: int, broken: bool, code: int
) -> None:
    steps(monkeypatch, failed=failed, broken=broken)
    assert run(tmp_path, {"RESULTS_DIR": "out"}) == code
    written = tmp_path / "out" / "confirmation" / job()["id"] / "ab.json"
    assert json.loads(written.read_text(encoding="utf-8")) == SUMMARY


def test_without_results_dir_the_results_go_to_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    steps(monkeypatch)
    assert run(tmp_path, {}) == OK
    assert (tmp_path / "results" / "confirmation" / job()["id"] / "ab.json").is_file()


def test_a_cancel_stops_the_sides_containers_and_exits_128_plus_its_signal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    children: list[subprocess.Popen[bytes]] = []

    def run_steps(ctx: SideContext) -> dict[str, Any]:
        child = subprocess.Popen(["sleep", "60"])
        ctx.children.append(child)
        children.append(child)
        raise Cancelled(signal.SIGTERM)

    monkeypatch.setattr(confirm_job, "run_steps", run_steps)
    before = signal.getsignal(signal.SIGTERM)
    assert run(tmp_path, {}) == 128 + signal.SIGTERM
    assert children[0].returncode == -signal.SIGTERM
    assert signal.getsignal(signal.SIGTERM) == before
    assert not (tmp_path / "results").exists()
