"""Stage `plan`: what a selection, a cron group or the week costs: jobs (= server
launches), cells, estimated GPU-hours and wall time on the declared runner pool; packed,
and side by side with the one-job-per-cell shape. See docs/planning.md."""

from __future__ import annotations

from typing import Any

from generator.catalog.cron import runs_per_week
from generator.expand.estimate import shown as minutes
from generator.plan.budget import (
    AB_JOBS_PER_SERVER_RUN,
    expected_gpu_hours,
    run_budget,
    settings,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import Expanded, Job, Shape
    from generator.expand.query import Query

WEEK_TOTALS = (
    "cells_per_week",
    "launches_per_week",
    "per_cell_launches_per_week",
    "gpu_hours_per_week",
    "per_cell_gpu_hours_per_week",
    "wall_hours_per_week",
    "per_cell_wall_hours_per_week",
)


def shape_json(shape: Shape) -> dict[str, Any]:
    return {
        "jobs": shape.jobs,
        "launches": shape.jobs,
        "gpu_hours": round(shape.gpu_hours, 1),
        "wall_hours": round(shape.wall_hours, 1),
        "longest_job_minutes": minutes(shape.longest_job_minutes),
    }


def confirmation(catalog: Catalog, jobs: Iterable[Job]) -> dict[str, Any]:
    """The A/B confirmation budget of a run of these jobs (generator/plan/budget.py)."""
    confirm = catalog.regression.confirm
    runners = {r.label: r for r in catalog.runners}
    jobs = list(jobs)
    return {
        "settings": settings(confirm),
        **run_budget(jobs, runners, confirm),
        "expected_gpu_hours": round(expected_gpu_hours(jobs, runners, confirm), 1),
    }


def plan_query(q: Query, catalog: Catalog | None = None) -> dict[str, Any]:
    run = q.run
    extra = {} if catalog is None else {"confirmation": confirmation(catalog, run.jobs)}
    return {
        "kind": q.kind,
        "name": q.name,
        "mode": run.mode,
        "configs": len(q.configs),
        "cells": len(run.cells),
        "packed": shape_json(run.packed),
        "per_cell": shape_json(run.per_cell),
        "jobs": [
            {
                "id": j.id,
                "runner": j.server.runner,
                "points": len(j.cells),
                "startup_minutes": minutes(j.startup_minutes),
                "estimate_minutes": minutes(j.minutes),
            }
            for j in run.jobs
        ],
        **extra,
    }


def tidy(value: float) -> float | int:
    return round(value) if abs(value - round(value)) < 1e-9 else round(value, 2)


def plan_week(expanded: Expanded) -> dict[str, Any]:
    groups = []
    totals = dict.fromkeys(WEEK_TOTALS, 0.0)
    ab = dict.fromkeys(("jobs", "launches", "gpu_hours", "expected_gpu_hours"), 0.0)
    for s in expanded.schedules:
        run = s.default_run
        runs = runs_per_week(str(s.cron))
        budget = confirmation(expanded.catalog, run.jobs)
        for key in ab:
            ab[key] += runs * budget[key]
        groups.append(
            {
                "name": s.name,
                "title": s.title,
                "cron": s.cron,
                "runs_per_week": tidy(runs),
                "configs": len(s.configs),
                "cells": len(run.cells),
                "packed": shape_json(run.packed),
                "per_cell": shape_json(run.per_cell),
                "confirmation": budget,
            }
        )
        totals["cells_per_week"] += runs * len(run.cells)
        for side, shape in (("", run.packed), ("per_cell_", run.per_cell)):
            for k, v in zip(SHAPE, (shape.jobs, shape.gpu_hours, shape.wall_hours), strict=True):
                totals[f"{side}{k}_per_week"] += runs * v
    return {
        "kind": "week",
        "runners": {r.label: {"gpus": r.gpus, "count": r.count} for r in expanded.catalog.runners},
        "groups": groups,
        **{key: tidy(round(value, 1)) for key, value in totals.items()},
        "confirmation": {
            "settings": settings(expanded.catalog.regression.confirm),
            **{f"{key}_per_week": tidy(round(value, 1)) for key, value in ab.items()},
            "ab_jobs_per_server_run": AB_JOBS_PER_SERVER_RUN,
        },
    }


SHAPE = ("launches", "gpu_hours", "wall_hours")  # a shape's columns, in the tables' order


def row(cells: list[object], widths: list[int]) -> str:
    out = [str(cells[0]).ljust(widths[0])]
    out += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join(out).rstrip()


def spans(spans: list[tuple[str, int]]) -> str:
    """A heading over column groups: each text right-aligned over its span."""
    return "  ".join(text.rjust(width) for text, width in spans).rstrip()


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def hours_text(value: float) -> str:
    """GPU-hours as a label shows them: whole hours from 10 up, else one decimal."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def signed(value: float) -> str:
    return f"+{value}" if value > 0 else str(value)
