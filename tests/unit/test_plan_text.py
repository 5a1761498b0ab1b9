"""`generator.plan.text`: a selection's plan as plain-text tables."""

from __future__ import annotations

from typing import cast

from generator.plan.text import format_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.week import QueryPlan

SHAPE = {"launches": 2, "gpu_hours": 3.5, "wall_hours": 1.5, "longest_job_minutes": 50}
QUERY = {
    "kind": "preset",
    "name": "all-qwen",
    "configs": 1,
    "cells": 10,
    "packed": SHAPE,
    "per_cell": {**SHAPE, "launches": 10},
    "jobs": [{"id": "qwen-tp8", "points": 10, "startup_minutes": 12, "estimate_minutes": 50}],
    "confirmation": {
        "enabled": True,
        "settings": "on",
        "jobs": 1,
        "launches": 2,
        "gpu_hours": 1.2,
        "longest_minutes": 30,
        "expected_gpu_hours": 0.1,
    },
}


def test_a_selection_shows_both_shapes_its_jobs_and_the_a_b_budget() -> None:
    assert format_text(cast("QueryPlan", QUERY)).splitlines() == [
        "preset all-qwen: 1 config, 10 cells",
        "",
        "shape             launches    GPU-h   wall h   longest job",
        "packed                   2      3.5      1.5        50 min",
        "one per cell            10      3.5      1.5        50 min",
        "",
        "job       points  start-up  estimate",
        "qwen-tp8      10    12 min    50 min",
        "",
        "A/B confirmation at most, per run: on",
        "  1 job, 2 server launches, 1.2 GPU-h, longest job 30 min",
        "  expected where nothing changed: 0.1 GPU-h",
    ]


def test_a_run_without_confirmation_says_how_it_is_set() -> None:
    off = {**QUERY, "confirmation": {"enabled": False, "settings": "off (regression.confirm)"}}
    assert (
        format_text(cast("QueryPlan", off)).splitlines()[-1]
        == "A/B confirmation: off (regression.confirm)"
    )
