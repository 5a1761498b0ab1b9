"""A catalog's cron groups and presets as selections: the configs each selects, and the run
of each of its server modes."""

from __future__ import annotations

from generator.catalog.catalog_types import SELECTOR_FIELDS, field_value
from generator.errors import CatalogError, SelectionError
from generator.expand.expanded import Selection
from generator.expand.select import assemble, check_mode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from generator.catalog.catalog_types import Catalog, Config, Preset, Schedule, Selector
    from generator.expand.expanded import Cell, Job, Run

    # The run of some configs in a server mode and packing (select.assemble's, bound).
    RunOf = Callable[[tuple[Config, ...], str | None, str], Run]


def selections(
    catalog: Catalog,
    cells: dict[tuple[str, str], tuple[Cell, ...]],
    jobs: dict[tuple[str, str, str], tuple[Job, ...]],
) -> tuple[tuple[Selection, ...], tuple[Selection, ...]]:
    """The catalog's cron groups and its presets, each refused when it selects nothing."""
    by_field = _field_index(catalog.configs)

    def run(configs: tuple[Config, ...], mode: str | None, packing: str) -> Run:
        return assemble(catalog, cells, jobs, configs, mode, packing)

    schedules = tuple(
        _schedule(catalog, run, s, _selected(catalog, by_field, s.select))
        for s in catalog.schedules
    )
    presets = tuple(
        _preset(catalog, run, p, _selected(catalog, by_field, p.select, p.suite))
        for p in catalog.presets
    )
    return schedules, presets


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


def _schedule(catalog: Catalog, run: RunOf, s: Schedule, configs: tuple[Config, ...]) -> Selection:
    if not configs:
        msg = f"cron group '{s.name}' selects no config"
        raise CatalogError(msg, s.select_loc)
    try:
        check_mode(catalog, (c.suite for c in configs), s.server_mode, None)
    except SelectionError as e:
        msg = f"cron group '{s.name}': {e.message}"
        raise CatalogError(msg, s.loc) from e
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
        runs={s.server_mode: run(configs, s.server_mode, s.packing)},
    )


def _preset(catalog: Catalog, run: RunOf, p: Preset, configs: tuple[Config, ...]) -> Selection:
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
        runs={m: run(configs, m, p.packing) for m in modes},
    )
