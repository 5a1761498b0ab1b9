"""`generator.plan.budget`: the most `regression.confirm` may cost (a job's A/B steps, a run's
most expensive jobs), what it is expected to cost, and the knobs as one phrase."""

from __future__ import annotations

import dataclasses

import pytest

from generator.catalog.confirm_section import Confirm
from generator.plan.budget import (
    AB_JOBS_PER_SERVER_RUN,
    expected_gpu_hours,
    job_cost,
    run_budget,
    settings,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.server_types import Runner
    from generator.expand.expanded import Expanded, Job

ON = Confirm(enabled=True, repeats=3, max_jobs=2, max_points=2, max_bisect_steps=2)
OFF = {"enabled": False, "jobs": 0, "launches": 0, "gpu_hours": 0.0, "longest_minutes": 0}


def _runners(fixture: Expanded) -> dict[str, Runner]:
    return {r.label: r for r in fixture.catalog.runners}


def _mesh_jobs(fixture: Expanded) -> tuple[Job, ...]:
    [mesh] = [s for s in fixture.schedules if s.name == "mesh-all"]
    return mesh.default_run.jobs


def test_two_servers_at_once_cost_two_launches_a_full_runner_k_plus_one(
    fixture: Expanded,
) -> None:
    runners = _runners(fixture)
    jobs = {j.id: j for s in fixture.schedules for j in s.default_run.jobs}
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


def test_without_the_bisection_a_job_costs_its_first_a_b_alone(fixture: Expanded) -> None:
    runners = _runners(fixture)
    job = next(j for j in _mesh_jobs(fixture) if j.config.parallel.gpus == 8)
    full = job_cost(job, runners[job.server.runner], ON)
    first = job_cost(job, runners[job.server.runner], ON, bisect=False)
    assert (full.id, full.mode, first.mode) == (job.id, "restart", "restart")
    assert (full.launches, first.launches) == (12, 4)
    assert full.minutes == pytest.approx(3 * first.minutes)
    no_bisect = dataclasses.replace(ON, bisect=False)
    assert job_cost(job, runners[job.server.runner], no_bisect) == first


def test_a_run_s_budget_is_its_max_jobs_most_expensive_jobs(fixture: Expanded) -> None:
    runners = _runners(fixture)
    jobs = _mesh_jobs(fixture)
    costs = sorted(
        (job_cost(j, runners[j.server.runner], ON) for j in jobs), key=lambda c: -c.gpu_hours
    )
    assert len(jobs) == 17
    assert run_budget(jobs, runners, ON) == {
        "enabled": True,
        "jobs": 2,
        "launches": costs[0].launches + costs[1].launches,
        "gpu_hours": round(costs[0].gpu_hours + costs[1].gpu_hours, 1),
        "longest_minutes": round(max(c.minutes for c in costs)),
    }
    assert run_budget(jobs[:1], runners, ON)["jobs"] == 1
    assert run_budget((), runners, ON) == {
        "enabled": True,
        "jobs": 0,
        "launches": 0,
        "gpu_hours": 0,
        "longest_minutes": 0,
    }


@pytest.mark.parametrize(
    "confirm", [Confirm(), dataclasses.replace(ON, max_jobs=0)], ids=["disabled", "no-jobs"]
)
def test_a_disabled_confirmation_costs_nothing(fixture: Expanded, confirm: Confirm) -> None:
    runners, jobs = _runners(fixture), _mesh_jobs(fixture)
    assert run_budget(jobs, runners, confirm) == OFF
    assert expected_gpu_hours(jobs, runners, confirm) == 0.0


def test_the_expected_cost_is_one_a_b_step_per_job_at_the_bench_s_rate(fixture: Expanded) -> None:
    runners, jobs = _runners(fixture), _mesh_jobs(fixture)
    one_step = sum(job_cost(j, runners[j.server.runner], ON, bisect=False).gpu_hours for j in jobs)
    assert AB_JOBS_PER_SERVER_RUN == 0.125
    assert expected_gpu_hours(jobs, runners, ON) == pytest.approx(0.125 * one_step)


def test_the_settings_read_as_one_phrase() -> None:
    assert settings(Confirm()) == "off (regression.confirm.enabled is false)"
    assert settings(ON) == (
        "3 repeats of each image, at most 2 job(s) a run of at most 2 point(s), "
        "bisection up to 2 more A/B(s)"
    )
    assert settings(dataclasses.replace(ON, bisect=False, repeats=5)) == (
        "5 repeats of each image, at most 2 job(s) a run of at most 2 point(s), no bisection"
    )
