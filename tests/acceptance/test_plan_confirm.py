"""`sglang-ci plan` shows what `regression.confirm` may cost at most (plan/budget.py)."""

from __future__ import annotations

import json

import pytest

from generator.plan.budget import AB_JOBS_PER_SERVER_RUN, job_cost
from generator.plan.week import confirmation
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
        "expected_gpu_hours_per_week": pytest.approx(1543 * AB_JOBS_PER_SERVER_RUN, rel=1e-3),
        "ab_jobs_per_server_run": AB_JOBS_PER_SERVER_RUN,
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
        "2 point(s), bisection up to 2 more A/B(s); expected: where nothing changed, "
        f"{AB_JOBS_PER_SERVER_RUN} A/B jobs a server-run (make bench)"
    )
    assert text[start + 2].split() == [
        "cron", "group", "runs/week", "jobs", "launches", "GPU-h", "expected"
    ]  # fmt: skip
    mesh = next(g for g in week["groups"] if g["name"] == "mesh-all")
    expected = mesh["confirmation"]["expected_gpu_hours"]
    assert text[start + 5].split() == ["mesh-all", "1", "2", "24", "323.0", str(expected)]
    per_week = week["confirmation"]["expected_gpu_hours_per_week"]
    assert text[-2].split() == ["per", "week", "12", "144", "1245.5", str(per_week)]
    share = 100 * per_week / week["gpu_hours_per_week"]
    assert text[-1] == (
        f"expected A/B GPU-h a week: {per_week}, {share:.1f}% of the benchmarks' "
        f"{week['gpu_hours_per_week']}"
    )


def test_the_expected_cost_is_one_a_b_step_of_every_job_at_the_benchs_rate(root: Path) -> None:
    """Where nothing changed each server of a run gets an A/B as often as the bench measures
    (AB_JOBS_PER_SERVER_RUN), without a bisection: a bisection follows a confirmation."""
    expanded = expanded_at(root)
    runners = {r.label: r for r in expanded.catalog.runners}
    confirm = expanded.catalog.regression.confirm
    [mesh] = [s for s in expanded.schedules if s.name == "mesh-all"]
    jobs = mesh.default_run.jobs
    one_step = [job_cost(j, runners[j.server.runner], confirm, bisect=False) for j in jobs]
    full = [job_cost(j, runners[j.server.runner], confirm) for j in jobs]
    assert len(jobs) == 17
    assert [c.minutes * confirm.steps for c in one_step] == pytest.approx([c.minutes for c in full])
    assert confirmation(expanded.catalog, jobs)["expected_gpu_hours"] == pytest.approx(
        AB_JOBS_PER_SERVER_RUN * sum(c.gpu_hours for c in one_step), abs=0.05
    )


def test_a_selection_shows_its_run_budget(cli: Invoke, root: Path) -> None:
    lines = cli("plan", "--preset", "all-qwen", root=root).stdout.splitlines()
    assert lines[-3].startswith("A/B confirmation at most, per run: 3 repeats")
    assert lines[-2].split()[:6] == ["2", "jobs,", "18", "server", "launches,", "132.0"]
    assert lines[-1].startswith("  expected where nothing changed: ")
