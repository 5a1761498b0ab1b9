"""Cells that share a server become one job: one server launch, a sweep of points.

A job whose estimate (start-up plus its points) is longer than the catalog's
`max_job_minutes` is split into parts of consecutive points, each starting its own
server; a config, cron group or preset with `packing: per-cell` gets one job per cell.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.errors import CatalogError
from generator.estimate import shown, startup_minutes
from generator.expand import Cell, Server
from generator.model import PER_CELL, Catalog, Config

_SLACK = 1e-9  # float sums of the same minutes in another order


@dataclass(frozen=True, kw_only=True)
class Job:
    id: str
    server: Server
    cells: tuple[Cell, ...]
    startup_minutes: float

    @property
    def config(self) -> Config:
        return self.cells[0].config

    @property
    def minutes(self) -> float:
        """Estimated length: one server start-up and every point."""
        return self.startup_minutes + sum(c.minutes for c in self.cells)


def pack(catalog: Catalog, cells: list[Cell], *, per_cell: bool = False) -> list[Job]:
    """Group cells by config and server fingerprint, keeping sweep order; split long jobs.

    `per_cell` asks for the legacy shape: every cell its own job."""
    groups: dict[tuple[object, ...], list[Cell]] = {}
    for cell in cells:
        alone = per_cell or cell.config.packing == PER_CELL
        key = (cell.config.prefix, cell.id if alone else "", *cell.server.fingerprint())
        groups.setdefault(key, []).append(cell)
    jobs = []
    bound = catalog.estimates.max_job_minutes
    for (_, alone_id, *_), group in groups.items():
        config = group[0].config
        startup = startup_minutes(catalog.estimates, config)
        base = str(alone_id) or config.prefix + _pairs_suffix(config, group)
        check_points_fit(catalog, group)
        sizes = split([c.minutes for c in group], bound - startup)
        start = 0
        for number, size in enumerate(sizes, 1):
            part = f"-{number}of{len(sizes)}" if len(sizes) > 1 else ""
            jobs.append(
                Job(
                    id=base + part,
                    server=group[0].server,
                    cells=tuple(group[start : start + size]),
                    startup_minutes=startup,
                )
            )
            start += size
    return jobs


def check_points_fit(catalog: Catalog, cells: list[Cell]) -> None:
    """Refuse, at the config's line, a config whose longest point cannot fit the job
    bound even alone."""
    bound = catalog.estimates.max_job_minutes
    longest: dict[str, Cell] = {}
    for cell in cells:
        known = longest.get(cell.config.prefix)
        if known is None or cell.minutes > known.minutes:
            longest[cell.config.prefix] = cell
    for cell in longest.values():
        startup = startup_minutes(catalog.estimates, cell.config)
        if startup + cell.minutes > bound + _SLACK:
            raise CatalogError(
                f"point {cell.id} is estimated at {shown(cell.minutes)} min; with "
                f"{startup:g} min of start-up it exceeds max_job_minutes {bound:g}",
                cell.config.loc,
            )


def _pairs_suffix(config: Config, group: list[Cell]) -> str:
    """Nothing when the job runs all of the config's pairs, else `-<pair>-<pair>`."""
    pairs = list(dict.fromkeys(c.pair for c in group))
    if pairs == [p for p, _ in config.grid]:
        return ""
    return "-" + "-".join(str(p) for p in pairs)


def _greedy(points: list[float], room: float) -> list[int]:
    """Part sizes when each part takes consecutive points while they fit in `room`."""
    sizes: list[int] = []
    used = room + 1.0
    for p in points:
        if sizes and used + p <= room + _SLACK:
            sizes[-1] += 1
            used += p
        else:
            sizes.append(1)
            used = p
    return sizes


def split(points: list[float], room: float) -> list[int]:
    """Sizes of the fewest parts of consecutive points that each fit in `room`, as even
    as they can be: the longest part is (within a second) as short as the fewest parts
    allow. Every point must fit in `room` on its own."""
    if sum(points) <= room + _SLACK:
        return [len(points)]
    fewest = len(_greedy(points, room))
    low, high = max(points), room  # high always gives `fewest` parts
    while high - low > 1 / 60:
        mid = (low + high) / 2
        if len(_greedy(points, mid)) <= fewest:
            high = mid
        else:
            low = mid
    return _greedy(points, high)
