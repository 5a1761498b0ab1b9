"""Every id a user can name (a config, job, cell, case, cron group or preset), to what it
names."""

from __future__ import annotations

from generator.catalog.catalog_types import PER_SERVER
from generator.expand.expanded import Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import CaseRun, Cell, Job, Selection


def id_index(
    catalog: Catalog,
    cells: dict[tuple[str, str], tuple[Cell, ...]],
    jobs: dict[tuple[str, str, str], tuple[Job, ...]],
    case_runs: tuple[CaseRun, ...],
    schedules: tuple[Selection, ...],
    presets: tuple[Selection, ...],
) -> dict[str, tuple[Target, ...]]:
    """Every id a user can name, to what it names (an id may name several things)."""
    out: dict[str, list[Target]] = {}

    def add(target: Target) -> None:
        listed = out.setdefault(target.id, [])
        if target not in listed:
            listed.append(target)

    for config in catalog.configs:
        add(Target(kind="config", id=config.prefix, config=config))
    for (_, _, packing), listed in jobs.items():
        if packing == PER_SERVER:
            for job in listed:
                add(Target(kind="job", id=job.id, config=job.config))
    for listed_cells in cells.values():
        for cell in listed_cells:
            add(Target(kind="cell", id=cell.id, config=cell.config))
    for run in case_runs:
        for name in (run.case.id, run.id, run.case.name):
            add(Target(kind="case", id=name, case=run.case))
    for sel in (*schedules, *presets):
        kind = "group" if sel.kind == "schedule" else "preset"
        for name in (sel.name, *sel.aliases):
            add(Target(kind=kind, id=name, selection=sel))
    return {k: tuple(v) for k, v in out.items()}
