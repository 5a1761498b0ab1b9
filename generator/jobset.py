"""The jobs of a set of configs, packed once per config, server mode and packing."""

from __future__ import annotations

from generator.expand import cells_of, config_cells
from generator.memo import once_for
from generator.model import PER_CELL, Catalog, Config
from generator.pack import Job, pack
from generator.select import Selection


def _config_jobs(catalog: Catalog, config: Config, mode: str | None, per_cell: bool) -> list[Job]:
    chosen = mode or catalog.suite(config.suite).server_modes[0]
    return once_for(
        catalog,
        config,
        ("jobs", chosen, per_cell),
        lambda: pack(catalog, config_cells(catalog, config, chosen), per_cell=per_cell),
    )


def jobs_of(
    catalog: Catalog,
    configs: tuple[Config, ...],
    mode: str | None = None,
    *,
    per_cell: bool = False,
) -> list[Job]:
    """`pack(catalog, cells_of(catalog, configs, mode), per_cell=per_cell)`.

    A job never holds cells of two prefixes, so with distinct prefixes the jobs of a
    selection are its configs' jobs, in order, and each config is packed once.
    """
    if len({c.prefix for c in configs}) < len(configs):
        return pack(catalog, cells_of(catalog, configs, mode), per_cell=per_cell)
    return [job for c in configs for job in _config_jobs(catalog, c, mode, per_cell)]


def selection_jobs(catalog: Catalog, sel: Selection, mode: str | None) -> list[Job]:
    """The selection's cells packed into jobs, with the selection's packing."""
    return jobs_of(catalog, sel.configs, mode, per_cell=sel.packing == PER_CELL)
