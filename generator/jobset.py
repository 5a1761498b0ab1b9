"""The jobs of a set of configs, packed once per config and server mode."""

from __future__ import annotations

from generator.expand import config_cells
from generator.memo import once_for
from generator.model import Catalog, Config
from generator.pack import Job, pack


def _config_jobs(catalog: Catalog, config: Config, mode: str | None) -> list[Job]:
    chosen = mode or catalog.suite(config.suite).server_modes[0]
    return once_for(
        catalog, config, ("jobs", chosen), lambda: pack(config_cells(catalog, config, chosen))
    )


def jobs_of(catalog: Catalog, configs: tuple[Config, ...], mode: str | None = None) -> list[Job]:
    """`pack` of the configs' cells (in `mode`, else each suite's first mode).

    A job never holds cells of two prefixes, so with distinct prefixes the jobs of a
    selection are its configs' jobs, in order, and each config is packed once.
    """
    if len({c.prefix for c in configs}) < len(configs):
        return pack([cell for c in configs for cell in config_cells(catalog, c, mode)])
    return [job for config in configs for job in _config_jobs(catalog, config, mode)]
