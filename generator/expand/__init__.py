"""Stage 2, expand: every server, cell, job, case run and selection of a catalog, once.

`expand(catalog)` returns a frozen `Expanded`; lint, render, plan and explain read it and
compute nothing it holds again. Refusals found here (a server mode and a config that set
one flag differently without a declared precedence, a point longer than the job bound,
two configs making one job id, a cron group or preset that selects nothing) name the
catalog's file and line.
"""

from __future__ import annotations

from generator.catalog.catalog_types import PER_CELL, PER_SERVER, Case, Catalog, Config
from generator.catalog.selectors import SELECTOR_FIELDS, Preset, Schedule, Selector, field_value
from generator.errors import CatalogError, SelectionError
from generator.expand.cells import config_cells
from generator.expand.expanded import (
    CaseRun,
    Cell,
    Expanded,
    Job,
    Selection,
    Server,
    Target,
)
from generator.expand.ids import bounded
from generator.expand.pack import pack
from generator.expand.select import assemble, check_mode
from generator.expand.servers import case_server, config_server

__all__ = ["expand"]


def expand(catalog: Catalog) -> Expanded:
    cells: dict[tuple[str, str], tuple[Cell, ...]] = {}
    jobs: dict[tuple[str, str, str], tuple[Job, ...]] = {}
    base_servers: dict[str, Server] = {}
    job_owner: dict[tuple[str, str, str], Config] = {}
    suites = {s.name: s for s in catalog.suites}
    for config in catalog.configs:
        modes = suites[config.suite].server_modes
        for mode in modes:
            servers = {pair: config_server(catalog, config, pair, mode) for pair, _ in config.grid}
            mine = cells[(config.prefix, mode)] = config_cells(catalog, config, servers)
            packed = pack(catalog, config, mine, per_cell=config.packing == PER_CELL)
            jobs[(config.prefix, mode, PER_SERVER)] = packed
            jobs[(config.prefix, mode, PER_CELL)] = pack(catalog, config, mine, per_cell=True)
            for packing in (PER_SERVER, PER_CELL):
                for job in jobs[(config.prefix, mode, packing)]:
                    _claim(job_owner, (mode, packing, job.id), config)
        base_servers[config.prefix] = config_server(catalog, config, None, modes[0])
    case_runs = tuple(run for case in catalog.cases for run in _case_runs(catalog, case))
    _unique_runs(case_runs)
    by_field = _field_index(catalog.configs)
    schedules = tuple(
        _schedule(catalog, cells, jobs, s, _selected(catalog, by_field, s.select))
        for s in catalog.schedules
    )
    presets = tuple(
        _preset(catalog, cells, jobs, p, _selected(catalog, by_field, p.select, p.suite))
        for p in catalog.presets
    )
    return Expanded(
        catalog=catalog,
        cells=cells,
        jobs=jobs,
        base_servers=base_servers,
        case_runs=case_runs,
        schedules=schedules,
        presets=presets,
        index=_index(catalog, cells, jobs, case_runs, schedules, presets),
    )


def _claim(
    owner: dict[tuple[str, str, str], Config], key: tuple[str, str, str], config: Config
) -> None:
    """A job id names one matrix entry of its server mode and packing, and its artifacts."""
    first = owner.setdefault(key, config)
    if first is not config:
        msg = (
            f"job id '{key[2]}' is made by config '{first.prefix}' (line {first.loc.line}) "
            f"and by config '{config.prefix}'; rename one prefix"
        )
        raise CatalogError(msg, config.loc)


def _unique_runs(runs: tuple[CaseRun, ...]) -> None:
    """A case run's id (the case's, with its image key when it pins images) names one
    matrix entry and its artifacts: no two runs may share one."""
    first: dict[str, CaseRun] = {}
    for run in runs:
        other = first.setdefault(run.id, run)
        if other is not run and other.case is not run.case:
            msg = (
                f"case '{run.case.id}' makes the run id '{run.id}', which case "
                f"'{other.case.id}' (line {other.case.loc.line}) makes too; two jobs would "
                "upload one artifact: rename one case"
            )
            raise CatalogError(msg, run.case.loc)


def _case_runs(catalog: Catalog, case: Case) -> list[CaseRun]:
    """One run per image the case pins (one run, on the default image, when it pins none)."""
    server = case_server(catalog, case)
    by_level = tuple((level, case_server(catalog, case, level)) for level, _ in case.level_runners)
    if not case.images:
        return [
            CaseRun(
                id=case.id,
                case=case,
                name=case.name,
                image=catalog.default_image,
                server=server,
                level_servers=by_level,
            )
        ]
    return [
        CaseRun(
            id=bounded(f"{case.id}-{key}"),
            case=case,
            name=f"{case.name} ({key})",
            image=image,
            server=server,
            level_servers=by_level,
        )
        for key, image in case.images
    ]


def _field_index(configs: tuple[Config, ...]) -> dict[tuple[str, str], list[int]]:
    """Config positions by (field, value), so selecting stays linear in configs."""
    out: dict[tuple[str, str], list[int]] = {}
    for i, config in enumerate(configs):
        for field in SELECTOR_FIELDS:
            out.setdefault((field, str(field_value(config, field))), []).append(i)
    return out


def _selected(
    catalog: Catalog,
    by_field: dict[tuple[str, str], list[int]],
    selectors: tuple[Selector, ...],
    suite: str | None = None,
) -> tuple[Config, ...]:
    """The configs any selector matches (in catalog order), within `suite` when given."""
    chosen: set[int] = set()
    for sel in selectors:
        hits: set[int] | None = None
        for field, values in sel.fields:
            found = {i for v in values for i in by_field.get((field, v), ())}
            hits = found if hits is None else hits & found
        chosen |= hits if hits is not None else set(range(len(catalog.configs)))
    configs = (catalog.configs[i] for i in sorted(chosen))
    return tuple(c for c in configs if suite is None or c.suite == suite)


def _schedule(
    catalog: Catalog,
    cells: dict[tuple[str, str], tuple[Cell, ...]],
    jobs: dict[tuple[str, str, str], tuple[Job, ...]],
    s: Schedule,
    configs: tuple[Config, ...],
) -> Selection:
    if not configs:
        msg = f"cron group '{s.name}' selects no config"
        raise CatalogError(msg, s.select_loc)
    try:
        check_mode(catalog, (c.suite for c in configs), s.server_mode, None)
    except SelectionError as e:
        msg = f"cron group '{s.name}': {e.message}"
        raise CatalogError(msg, s.loc) from e
    run = assemble(catalog, cells, jobs, configs, s.server_mode, s.packing)
    return Selection(
        kind="schedule",
        name=s.name,
        title=s.title,
        per_config=False,
        aliases=(),
        cron=s.cron,
        suite=None,
        configs=configs,
        packing=s.packing,
        loc=s.loc,
        source=s,
        runs={s.server_mode: run},
    )


def _preset(
    catalog: Catalog,
    cells: dict[tuple[str, str], tuple[Cell, ...]],
    jobs: dict[tuple[str, str, str], tuple[Job, ...]],
    p: Preset,
    configs: tuple[Config, ...],
) -> Selection:
    if not configs:
        msg = f"preset '{p.name}' selects no config"
        raise CatalogError(msg, p.select_loc)
    modes = catalog.suite(p.suite).server_modes
    return Selection(
        kind="preset",
        name=p.name,
        title=p.name,
        per_config=p.per_config,
        aliases=p.aliases,
        cron=None,
        suite=p.suite,
        configs=configs,
        packing=p.packing,
        loc=p.loc,
        source=p,
        runs={m: assemble(catalog, cells, jobs, configs, m, p.packing) for m in modes},
    )


def _index(
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
