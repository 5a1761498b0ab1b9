"""A config's benchmark cells in one server mode, in sweep order."""

from __future__ import annotations

from generator.catalog.catalog_types import Catalog, Config, Pair
from generator.expand.estimate import point_minutes
from generator.expand.expanded import Cell, Server
from generator.expand.ids import bounded

GridPoint = tuple[Pair, int, float]  # (ISL/OSL, concurrency, random range ratio)


def ratio_text(ratio: float) -> str:
    return f"{ratio:g}"


def cell_id(config: Config, pair: Pair, concurrency: int, ratio: float) -> str:
    return bounded(f"{config.prefix}-{pair.isl}-{pair.osl}-{concurrency}-{ratio_text(ratio)}")


def grid_points(catalog: Catalog, config: Config) -> tuple[GridPoint, ...]:
    """The config's points: its pairs in suite order, each from low to high concurrency,
    at its suite's random range ratio."""
    ratio = catalog.suite(config.suite).random_range_ratio
    return tuple((pair, conc, ratio) for pair, concs in config.grid for conc in sorted(concs))


def config_cells(
    catalog: Catalog,
    config: Config,
    servers: dict[Pair, Server],
    points: tuple[GridPoint, ...] | None = None,
) -> tuple[Cell, ...]:
    """The config's cells over `points` (default: its grid), in that order; `servers`
    holds the config's server for each pair in the mode at hand."""
    sampling = config.sampling
    out = []
    for pair, conc, ratio in grid_points(catalog, config) if points is None else points:
        prompts = conc * sampling.prompts_per_concurrency
        warmups = conc * sampling.warmups_per_concurrency
        out.append(
            Cell(
                id=cell_id(config, pair, conc, ratio),
                config=config,
                pair=pair,
                concurrency=conc,
                random_range_ratio=ratio,
                num_prompts=prompts,
                num_warmups=warmups,
                server=servers[pair],
                minutes=point_minutes(
                    catalog.estimates.point,
                    isl=pair.isl,
                    osl=pair.osl,
                    concurrency=conc,
                    requests=prompts + warmups,
                    gpus=config.parallel.gpus,
                ),
            )
        )
    return tuple(out)
