"""generator.expand.cost: GPU-hours and wall time of a set of jobs on the runner pool."""

from __future__ import annotations

import dataclasses

from generator.catalog.server_types import Runner
from generator.errors import Loc
from generator.expand.cost import shape
from generator.expand.expanded import Expanded, Job, Shape


def job(template: Job, name: str, runner: str, minutes: float) -> Job:
    server = dataclasses.replace(template.server, runner=runner)
    return dataclasses.replace(template, id=name, server=server, startup_minutes=minutes, cells=())


def test_the_longest_job_goes_first_to_the_least_busy_machine_of_its_label(
    fixture: Expanded,
) -> None:
    template = next(iter(fixture.jobs.values()))[0]
    loc = Loc("catalogs/benchmark.yaml", 1)
    runners = {
        "eight": Runner(label="eight", gpus=8, count=2, loc=loc),
        "four": Runner(label="four", gpus=4, count=1, loc=loc),
    }
    jobs = [
        job(template, "a", "eight", 60),
        job(template, "b", "eight", 30),
        job(template, "c", "eight", 30),
        job(template, "d", "four", 45),
    ]
    # eight: 60 on one machine, 30 + 30 on the other; four: 45. GPU-minutes: 8 x 120 + 4 x 45.
    assert shape(runners, jobs) == Shape(
        jobs=4, gpu_hours=(8 * 120 + 4 * 45) / 60, wall_hours=1.0, longest_job_minutes=60
    )
    assert shape(runners, []) == Shape(jobs=0, gpu_hours=0, wall_hours=0, longest_job_minutes=0)
