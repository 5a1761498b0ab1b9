"""Stage 2, expand: every server, cell, job, case run and selection of a catalog, once.

`expand(catalog)` returns a frozen `Expanded`; lint, render, plan and explain read it and
compute nothing it holds again. Refusals found here (a server mode and a config that set
one flag differently without a declared precedence, a point longer than the job bound,
two configs making one job id, a cron group or preset that selects nothing) name the
catalog's file and line.
"""

from __future__ import annotations

from generator.catalog.catalog_types import PER_CELL, PER_SERVER
from generator.errors import CatalogError
from generator.expand.case_runs import case_runs
from generator.expand.cells import config_cells
from generator.expand.expanded import Expanded
from generator.expand.pack import pack
from generator.expand.selections import selections
from generator.expand.servers import config_server
from generator.expand.targets import id_index

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog, Config
    from generator.expand.expanded import Cell, Job, Server

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
    runs = case_runs(catalog)
    schedules, presets = selections(catalog, cells, jobs)
    return Expanded(
        catalog=catalog,
        cells=cells,
        jobs=jobs,
        base_servers=base_servers,
        case_runs=runs,
        schedules=schedules,
        presets=presets,
        index=id_index(catalog, cells, jobs, runs, schedules, presets),
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
