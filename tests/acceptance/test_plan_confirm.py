"""`sglang-ci plan` shows what `regression.confirm` may cost at most (confirm/budget.py)."""

from __future__ import annotations

import json

import pytest

from generator.catalog.confirm import Confirm
from generator.confirm.budget import job_cost
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from tests.conftest import Invoke

CONFIRM = (
    "  confirm: {enabled: true, repeats: 3, max_jobs: 2, max_points: 2, max_bisect_steps: 2}\n"
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    copy_catalogs(tmp_path)
    edit(
        tmp_path / "catalogs/benchmark.yaml",
        "  thresholds: {floor: 0.0, margin: 0.01, min_runs: 5}\n",
        "  thresholds: {floor: 0.0, margin: 0.01, min_runs: 5}\n" + CONFIRM,
    )
    return tmp_path


def test_the_week_shows_the_confirmation_budget_per_group_and_per_week(
    cli: Invoke, root: Path
) -> None:
    week = json.loads(cli("plan", "--week", "--json", root=root).stdout)
    assert week["confirmation"] == {
        "settings": "3 repeats of each image, at most 2 job(s) a run of at most 2 point(s), "
        "bisection up to 2 more A/B(s)",
        "jobs_per_week": 12,
        "launches_per_week": 144,
        "gpu_hours_per_week": 1245.5,
    }
    got = {
        g["name"]: (g["confirmation"]["jobs"], g["confirmation"]["gpu_hours"])
        for g in week["groups"]
    }
    assert got == {
        "oob-deepseek-non-mtp": (2, 184.5),
        "oob-deepseek-mtp-qwen": (2, 184.5),
        "mesh-all": (2, 323.0),
        "oob-all": (2, 184.5),
    }
    text = cli("plan", "--week", root=root).stdout.splitlines()
    start = text.index(
        "A/B confirmation at most: 3 repeats of each image, at most 2 job(s) a run of at most "
        "2 point(s), bisection up to 2 more A/B(s)"
    )
    assert text[start + 2].split() == ["cron", "group", "runs/week", "jobs", "launches", "GPU-h"]
    assert text[start + 5].split() == ["mesh-all", "1", "2", "24", "323.0"]
    assert text[-1].split() == ["per", "week", "12", "144", "1245.5"]


def test_a_selection_shows_its_run_budget(cli: Invoke, root: Path) -> None:
    lines = cli("plan", "--preset", "all-qwen", root=root).stdout.splitlines()
    assert lines[-2].startswith("A/B confirmation at most, per run: 3 repeats")
    assert lines[-1].split()[:6] == ["2", "jobs,", "18", "server", "launches,", "132.0"]


def test_two_servers_at_once_cost_two_launches_a_full_runner_k_plus_one(root: Path) -> None:
    expanded = expanded_at(root)
    runners = {r.label: r for r in expanded.catalog.runners}
    jobs = {j.id: j for s in expanded.schedules for j in s.default_run.jobs}
    confirm = Confirm(enabled=True, repeats=3, max_points=2, max_bisect_steps=2)
    for job_id, launches, startups in [
        ("deepseek-r1-fp8-tp4", 2, 1),
        ("deepseek-r1-fp8-tp8", 4, 4),
    ]:
        job = jobs[job_id]
        top = sum(sorted((c.minutes for c in job.cells), reverse=True)[:2])
        cost = job_cost(job, runners[job.server.runner], confirm)
        assert cost.launches == 3 * launches
        assert cost.minutes == pytest.approx(3 * (startups * job.startup_minutes + 6 * top))
        assert cost.gpu_hours == pytest.approx(cost.minutes * 8 / 60)
