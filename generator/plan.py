"""What a selection, a cron group or the week costs: jobs (= server launches), cells,
estimated GPU-hours and wall time on the declared runner pool; packed, and side by side
with the one-job-per-cell shape.

A job holds its whole runner, so its GPU-hours are its estimate times the runner's GPUs.
Wall time puts the longest job first on the least busy machine of its runner label;
labels run side by side. See docs/planning.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.cron import runs_per_week
from generator.estimate import shown as minutes
from generator.expand import Cell, cells_of, check_modes
from generator.jobset import jobs_of, selection_jobs
from generator.model import Catalog
from generator.pack import Job
from generator.select import Selection, selection


@dataclass(frozen=True, kw_only=True)
class Shape:
    jobs: int
    gpu_hours: float
    wall_hours: float
    longest_job_minutes: float

    def as_json(self) -> dict[str, Any]:
        return {
            "jobs": self.jobs,
            "launches": self.jobs,
            "gpu_hours": round(self.gpu_hours, 1),
            "wall_hours": round(self.wall_hours, 1),
            "longest_job_minutes": minutes(self.longest_job_minutes),
        }


def shape(catalog: Catalog, jobs: list[Job]) -> Shape:
    runners = {r.label: r for r in catalog.runners}
    loads: dict[str, list[float]] = {}
    gpu_minutes = 0.0
    for job in sorted(jobs, key=lambda j: (-j.minutes, j.id)):
        runner = runners[job.server.runner]
        gpu_minutes += job.minutes * runner.gpus
        machines = loads.setdefault(runner.label, [0.0] * runner.count)
        machines[machines.index(min(machines))] += job.minutes
    return Shape(
        jobs=len(jobs),
        gpu_hours=gpu_minutes / 60,
        wall_hours=max((max(m) for m in loads.values()), default=0.0) / 60,
        longest_job_minutes=max((j.minutes for j in jobs), default=0.0),
    )


def _packings(
    catalog: Catalog, sel: Selection, mode: str | None
) -> tuple[list[Cell], list[Job], list[Job]]:
    """The cells, their jobs with the selection's packing, and one job per cell."""
    cells = cells_of(catalog, sel.configs, mode)
    return (
        cells,
        selection_jobs(catalog, sel, mode),
        jobs_of(catalog, sel.configs, mode, per_cell=True),
    )


def shapes(catalog: Catalog, sel: Selection, mode: str | None) -> tuple[int, Shape, Shape]:
    """Cells, the packed shape and the one-job-per-cell shape of a selection."""
    cells, packed, per_cell = _packings(catalog, sel, mode)
    return len(cells), shape(catalog, packed), shape(catalog, per_cell)


def plan_selection(catalog: Catalog, sel: Selection, mode: str | None) -> dict[str, Any]:
    cells, packed, per_cell = _packings(catalog, sel, mode)
    return {
        "kind": sel.kind,
        "name": sel.name,
        "mode": mode,
        "configs": len(sel.configs),
        "cells": len(cells),
        "packed": shape(catalog, packed).as_json(),
        "per_cell": shape(catalog, per_cell).as_json(),
        "jobs": [
            {
                "id": j.id,
                "runner": j.server.runner,
                "points": len(j.cells),
                "startup_minutes": minutes(j.startup_minutes),
                "estimate_minutes": minutes(j.minutes),
            }
            for j in packed
        ],
    }


def _number(value: float) -> float | int:
    return round(value) if abs(value - round(value)) < 1e-9 else round(value, 2)


def plan_week(catalog: Catalog) -> dict[str, Any]:
    groups = []
    totals = dict.fromkeys(
        (
            "cells_per_week",
            "launches_per_week",
            "per_cell_launches_per_week",
            "gpu_hours_per_week",
            "per_cell_gpu_hours_per_week",
            "wall_hours_per_week",
            "per_cell_wall_hours_per_week",
        ),
        0.0,
    )
    for s in catalog.schedules:
        sel = selection(catalog, group=s.name)
        cells, packed, per_cell = shapes(catalog, sel, sel.mode)
        runs = runs_per_week(s.cron)
        groups.append(
            {
                "name": s.name,
                "title": s.title,
                "cron": s.cron,
                "runs_per_week": _number(runs),
                "configs": len(sel.configs),
                "cells": cells,
                "packed": packed.as_json(),
                "per_cell": per_cell.as_json(),
            }
        )
        totals["cells_per_week"] += runs * cells
        totals["launches_per_week"] += runs * packed.jobs
        totals["per_cell_launches_per_week"] += runs * per_cell.jobs
        totals["gpu_hours_per_week"] += runs * packed.gpu_hours
        totals["per_cell_gpu_hours_per_week"] += runs * per_cell.gpu_hours
        totals["wall_hours_per_week"] += runs * packed.wall_hours
        totals["per_cell_wall_hours_per_week"] += runs * per_cell.wall_hours
    return {
        "kind": "week",
        "runners": {r.label: {"gpus": r.gpus, "count": r.count} for r in catalog.runners},
        "groups": groups,
        **{key: _number(round(value, 1)) for key, value in totals.items()},
    }


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def hours_text(value: float) -> str:
    """GPU-hours as a label shows them: whole hours from 10 up, else one decimal."""
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def plan(
    catalog: Catalog,
    *,
    week: bool = False,
    mode: str | None = None,
    **selectors: str | None,
) -> dict[str, Any]:
    """The week (the default) or one selection (--group, --cron, --preset, --suite)."""
    if week or not any(v is not None for v in selectors.values()):
        return plan_week(catalog)
    sel = selection(catalog, **selectors)
    chosen = mode or sel.mode
    check_modes(catalog, sel.configs, chosen, None)
    return plan_selection(catalog, sel, chosen)
