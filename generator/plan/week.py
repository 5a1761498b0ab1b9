"""Stage `plan`: what a selection, a cron group or the week costs: jobs (= server
launches), cells, estimated GPU-hours and wall time on the declared runner pool; packed,
and side by side with the one-job-per-cell shape. See docs/planning.md."""

from __future__ import annotations

from collections import defaultdict
from typing import Literal, NotRequired, TypedDict

from generator.catalog.cron import runs_per_week
from generator.expand.estimate import shown as minutes
from generator.plan.budget import (
    AB_JOBS_PER_SERVER_RUN,
    RunBudget,
    expected_gpu_hours,
    run_budget,
    settings,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import Expanded, Job, Shape
    from generator.expand.query import Query, QueryKind

ShapeColumn = Literal["launches", "gpu_hours", "wall_hours"]
SHAPE: tuple[ShapeColumn, ...] = ("launches", "gpu_hours", "wall_hours")  # the tables' order
AbColumn = Literal["jobs", "launches", "gpu_hours", "expected_gpu_hours"]
AB_COLUMNS: tuple[AbColumn, ...] = ("jobs", "launches", "gpu_hours", "expected_gpu_hours")


class ShapeJson(TypedDict):
    """A run's shape as `plan` shows it: packed, or one job per cell."""

    jobs: int
    launches: int
    gpu_hours: float
    wall_hours: float
    longest_job_minutes: int


class RunConfirmation(RunBudget):
    """A run's A/B confirmation budget: at most, and expected where nothing changed."""

    settings: str
    expected_gpu_hours: float


class JobPlan(TypedDict):
    id: str
    runner: str
    points: int
    startup_minutes: int
    estimate_minutes: int


class QueryPlan(TypedDict):
    """`sglang-ci plan` of a selection: its shapes and jobs."""

    kind: QueryKind
    name: str
    mode: str | None
    configs: int
    cells: int
    packed: ShapeJson
    per_cell: ShapeJson
    jobs: list[JobPlan]
    confirmation: NotRequired[RunConfirmation]


class GroupPlan(TypedDict):
    """A cron group's run in `plan --week`, and its runs a week."""

    name: str
    title: str
    cron: str | None
    runs_per_week: float
    configs: int
    cells: int
    packed: ShapeJson
    per_cell: ShapeJson
    confirmation: RunConfirmation


class WeekConfirmation(TypedDict):
    settings: str
    jobs_per_week: float
    launches_per_week: float
    gpu_hours_per_week: float
    expected_gpu_hours_per_week: float
    ab_jobs_per_server_run: float


class WeekPlan(TypedDict):
    """`sglang-ci plan --week`: every cron group, and their totals over a week."""

    kind: Literal["week"]
    runners: dict[str, dict[str, int]]
    groups: list[GroupPlan]
    cells_per_week: float
    launches_per_week: float
    per_cell_launches_per_week: float
    gpu_hours_per_week: float
    per_cell_gpu_hours_per_week: float
    wall_hours_per_week: float
    per_cell_wall_hours_per_week: float
    confirmation: WeekConfirmation


def shape_json(shape: Shape) -> ShapeJson:
    return {
        "jobs": shape.jobs,
        "launches": shape.jobs,
        "gpu_hours": round(shape.gpu_hours, 1),
        "wall_hours": round(shape.wall_hours, 1),
        "longest_job_minutes": minutes(shape.longest_job_minutes),
    }


def confirmation(catalog: Catalog, jobs: Iterable[Job]) -> RunConfirmation:
    """The A/B confirmation budget of a run of these jobs (generator/plan/budget.py)."""
    confirm = catalog.regression.confirm
    runners = {r.label: r for r in catalog.runners}
    jobs = list(jobs)
    return {
        "settings": settings(confirm),
        **run_budget(jobs, runners, confirm),
        "expected_gpu_hours": round(expected_gpu_hours(jobs, runners, confirm), 1),
    }


def plan_query(q: Query, catalog: Catalog | None = None) -> QueryPlan:
    run = q.run
    plan: QueryPlan = {
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
    }
    if catalog is not None:
        plan["confirmation"] = confirmation(catalog, run.jobs)
    return plan


def tidy(value: float) -> float | int:
    return round(value) if abs(value - round(value)) < 1e-9 else round(value, 2)


def plan_week(expanded: Expanded) -> WeekPlan:
    groups: list[GroupPlan] = []
    totals: defaultdict[str, float] = defaultdict(float)  # "{shape_}{column}_per_week"
    ab = dict.fromkeys(AB_COLUMNS, 0.0)
    for s in expanded.schedules:
        run = s.default_run
        runs = runs_per_week(str(s.cron))
        budget = confirmation(expanded.catalog, run.jobs)
        for key in AB_COLUMNS:
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
    ab_week = {key: tidy(round(value, 1)) for key, value in ab.items()}
    return {
        "kind": "week",
        "runners": {r.label: {"gpus": r.gpus, "count": r.count} for r in expanded.catalog.runners},
        "groups": groups,
        "cells_per_week": tidy(round(totals["cells_per_week"], 1)),
        "launches_per_week": tidy(round(totals["launches_per_week"], 1)),
        "per_cell_launches_per_week": tidy(round(totals["per_cell_launches_per_week"], 1)),
        "gpu_hours_per_week": tidy(round(totals["gpu_hours_per_week"], 1)),
        "per_cell_gpu_hours_per_week": tidy(round(totals["per_cell_gpu_hours_per_week"], 1)),
        "wall_hours_per_week": tidy(round(totals["wall_hours_per_week"], 1)),
        "per_cell_wall_hours_per_week": tidy(round(totals["per_cell_wall_hours_per_week"], 1)),
        "confirmation": {
            "settings": settings(expanded.catalog.regression.confirm),
            "jobs_per_week": ab_week["jobs"],
            "launches_per_week": ab_week["launches"],
            "gpu_hours_per_week": ab_week["gpu_hours"],
            "expected_gpu_hours_per_week": ab_week["expected_gpu_hours"],
            "ab_jobs_per_server_run": AB_JOBS_PER_SERVER_RUN,
        },
    }


def week_totals(week: WeekPlan) -> list[float]:
    """The week's launches, GPU-hours and wall hours: packed, then one job per cell."""
    return [
        week["launches_per_week"],
        week["gpu_hours_per_week"],
        week["wall_hours_per_week"],
        week["per_cell_launches_per_week"],
        week["per_cell_gpu_hours_per_week"],
        week["per_cell_wall_hours_per_week"],
    ]


def row(cells: Sequence[object], widths: list[int]) -> str:
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
