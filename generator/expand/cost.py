"""What a set of jobs costs on the declared runner pool.

A job holds its whole runner, so its GPU-hours are its estimate times the runner's GPUs.
Wall time puts the longest job first on the least busy machine of its runner label;
labels run side by side. See docs/planning.md.
"""

from __future__ import annotations

from generator.expand.expanded import Job, Shape

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.catalog.server_types import Runner


def shape(runners: dict[str, Runner], jobs: Iterable[Job]) -> Shape:
    loads: dict[str, list[float]] = {}
    gpu_minutes = 0.0
    listed = sorted(jobs, key=lambda j: (-j.minutes, j.id))
    for job in listed:
        runner = runners[job.server.runner]
        gpu_minutes += job.minutes * runner.gpus
        machines = loads.setdefault(runner.label, [0.0] * runner.count)
        machines[machines.index(min(machines))] += job.minutes
    return Shape(
        jobs=len(listed),
        gpu_hours=gpu_minutes / 60,
        wall_hours=max((max(m) for m in loads.values()), default=0.0) / 60,
        longest_job_minutes=max((j.minutes for j in listed), default=0.0),
    )
