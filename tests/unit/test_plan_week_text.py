"""`generator.plan.week_text`: the week's plan as plain-text tables."""

from __future__ import annotations

from typing import cast

from generator.plan.week_text import week_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.week import WeekPlan

SHAPE = {"launches": 2, "gpu_hours": 3.5, "wall_hours": 1.5, "longest_job_minutes": 50}
TOTALS = {f"{s}{k}_per_week": v for s in ("", "per_cell_") for k, v in list(SHAPE.items())[:3]}
AB = {"enabled": True, "jobs": 1, "launches": 2, "gpu_hours": 1.2, "expected_gpu_hours": 0.5}
WEEK = {
    "kind": "week",
    "runners": {"mi355": {"count": 2, "gpus": 8}},
    "groups": [
        {
            "name": "nightly",
            "runs_per_week": 7,
            "cells": 10,
            "packed": SHAPE,
            "per_cell": SHAPE,
            "confirmation": AB,
        }
    ],
    "cells_per_week": 70,
    **TOTALS,
    "confirmation": {
        "settings": "on",
        "ab_jobs_per_server_run": 0.125,
        **{f"{k}_per_week": 7 * v for k, v in AB.items() if k != "enabled"},
    },
}


def test_the_week_shows_each_cron_group_packed_and_per_cell_then_the_a_b_budget() -> None:
    assert week_text(cast("WeekPlan", WEEK)).splitlines() == [
        "week: 1 cron groups; runners: mi355 2 x 8 GPUs",
        "",
        "                                                   packed            one job per cell",
        "cron group  runs/week   cells  launches    GPU-h   wall h  launches    GPU-h   wall h",
        "nightly             7      10         2      3.5      1.5         2      3.5      1.5",
        "per week                   70         2      3.5      1.5         2      3.5      1.5",
        "",
        (
            "A/B confirmation at most: on; expected: where nothing changed, 0.125 A/B jobs a "
            "server-run (make bench)"
        ),
        "",
        "cron group  runs/week   jobs  launches    GPU-h  expected",
        "nightly             7      1         2      1.2       0.5",
        "per week                   7        14      8.4       3.5",
        "expected A/B GPU-h a week: 3.5, 100.0% of the benchmarks' 3.5",
    ]
