"""What `regression.confirm` may cost at most: the confirmation jobs a run can emit, their
server launches and GPU-hours, as `sglang-ci plan` shows them (docs/confirmation.md).

A confirmation job measures at most `max_points` points of one job, K times on each image,
with two launches when two servers of the layout fit on the runner at once, else K + 1;
a bisection adds up to `max_bisect_steps` such A/Bs. Like any job it holds its whole
runner, so its GPU-hours are its length times the runner's GPUs. A run emits at most
`max_jobs` of them: the bound is its `max_jobs` most expensive jobs in that form.

What it is expected to cost where nothing changed: each server of the run gets an A/B as
often as `make bench` measures a clean server-run getting one (AB_JOBS_PER_SERVER_RUN),
one A/B step each (a bisection follows only a confirmation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from generator.core import ab_order

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from generator.catalog.confirm_section import Confirm
    from generator.catalog.server_types import Runner
    from generator.expand.expanded import Job


# A/B jobs a clean server-run gets (a suspicion, at `significance.suspect`, and again each
# night it stays suspected): "A/B jobs per clean server-run" of `python
# bench/bench_verdicts.py --set generator2`, the held-out generator's seeds 1-12: 0.125.
AB_JOBS_PER_SERVER_RUN = 0.125


class RunBudget(TypedDict):
    """At most what the A/B confirmation of one run costs."""

    enabled: bool
    jobs: int
    launches: int
    gpu_hours: float
    longest_minutes: int


@dataclass(frozen=True, kw_only=True)
class JobCost:
    id: str
    mode: str
    launches: int
    minutes: float
    gpu_hours: float


def job_cost(job: Job, runner: Runner, confirm: Confirm, *, bisect: bool = True) -> JobCost:
    """The most one confirmation job of `job` can take (every A/B step of it; without
    `bisect`, its first A/B alone)."""
    k = confirm.repeats
    steps = confirm.steps if bisect else 1
    points = sorted((c.minutes for c in job.cells), reverse=True)[: confirm.max_points]
    how = ab_order.mode(job.config.parallel.gpus, runner.gpus)
    launches = ab_order.launches(how, k)
    startups = job.startup_minutes * (1 if how == ab_order.PARALLEL else launches)
    minutes = steps * (startups + 2 * k * sum(points))
    return JobCost(
        id=job.id,
        mode=how,
        launches=steps * launches,
        minutes=minutes,
        gpu_hours=minutes * runner.gpus / 60,
    )


def run_budget(jobs: Iterable[Job], runners: Mapping[str, Runner], confirm: Confirm) -> RunBudget:
    """At most per run: the `max_jobs` most expensive confirmation jobs of these jobs."""
    if not confirm.enabled or confirm.max_jobs == 0:
        return {"enabled": False, "jobs": 0, "launches": 0, "gpu_hours": 0.0, "longest_minutes": 0}
    costs = sorted(
        (job_cost(j, runners[j.server.runner], confirm) for j in jobs),
        key=lambda c: (-c.gpu_hours, c.id),
    )[: confirm.max_jobs]
    return {
        "enabled": True,
        "jobs": len(costs),
        "launches": sum(c.launches for c in costs),
        "gpu_hours": round(sum(c.gpu_hours for c in costs), 1),
        "longest_minutes": round(max((c.minutes for c in costs), default=0.0)),
    }


def expected_gpu_hours(
    jobs: Iterable[Job], runners: Mapping[str, Runner], confirm: Confirm
) -> float:
    """The A/B GPU-hours a run of these jobs is expected to cost where nothing changed."""
    if not confirm.enabled or confirm.max_jobs == 0:
        return 0.0
    return AB_JOBS_PER_SERVER_RUN * sum(
        job_cost(j, runners[j.server.runner], confirm, bisect=False).gpu_hours for j in jobs
    )


def settings(confirm: Confirm) -> str:
    """The knobs the bound rests on, as one phrase."""
    if not confirm.enabled:
        return "off (regression.confirm.enabled is false)"
    bisect = (
        f"bisection up to {confirm.max_bisect_steps} more A/B(s)"
        if confirm.bisect
        else "no bisection"
    )
    return (
        f"{confirm.repeats} repeats of each image, at most {confirm.max_jobs} job(s) a run of "
        f"at most {confirm.max_points} point(s), {bisect}"
    )
