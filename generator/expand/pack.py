"""Cells that share a server become one job: one server launch, a sweep of points.

A job whose estimate (start-up plus its points) is longer than the catalog's
`max_job_minutes` is split into parts of consecutive points, each starting its own
server; a config, cron group or preset with `packing: per-cell` gets one job per cell.
"""

from __future__ import annotations

from generator.core.field_checks import MAX_POINTS
from generator.errors import CatalogError
from generator.expand.estimate import shown, startup_minutes
from generator.expand.expanded import Cell, Job, Server
from generator.expand.ids import bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from generator.catalog.catalog_types import Catalog, Config

_SLACK = 1e-9  # float sums of the same minutes in another order
# Points a job sweeps at most: the launcher refuses a job of more (generator/core/contract.py).
MAX_JOB_POINTS = MAX_POINTS


def pack(
    catalog: Catalog, config: Config, cells: tuple[Cell, ...], *, per_cell: bool
) -> tuple[Job, ...]:
    """One config's cells (in sweep order) as jobs: cells that share a server become one
    job, split where it would outrun the job bound; `per_cell`: every cell its own job,
    named by the cell. A point that cannot fit the bound even alone is refused at the
    config's line."""
    bound = catalog.estimates.max_job_minutes
    startup = startup_minutes(catalog.estimates, config)
    longest = max(cells, key=lambda c: c.minutes)
    if startup + longest.minutes > bound + _SLACK:
        msg = (
            f"point {longest.id} is estimated at {shown(longest.minutes)} min; with "
            f"{startup:g} min of start-up it exceeds max_job_minutes {bound:g}"
        )
        raise CatalogError(msg, config.loc)
    if per_cell:
        return tuple(
            Job(id=c.id, server=c.server, cells=(c,), startup_minutes=startup) for c in cells
        )
    groups: dict[Server, list[Cell]] = {}
    for cell in cells:
        groups.setdefault(cell.server, []).append(cell)
    jobs = []
    for server, group in groups.items():
        base = config.prefix + pairs_suffix(config, group)
        sizes = split([c.minutes for c in group], bound - startup, most=MAX_JOB_POINTS)
        start = 0
        for number, size in enumerate(sizes, 1):
            part = f"-{number}of{len(sizes)}" if len(sizes) > 1 else ""
            jobs.append(
                Job(
                    id=bounded(base + part),
                    server=server,
                    cells=tuple(group[start : start + size]),
                    startup_minutes=startup,
                )
            )
            start += size
    return tuple(jobs)


def pairs_suffix(config: Config, group: Sequence[Cell]) -> str:
    """Nothing when the job runs all of the config's pairs, else `-<pair>-<pair>`."""
    pairs = list(dict.fromkeys(c.pair for c in group))
    if pairs == [p for p, _ in config.grid]:
        return ""
    return "-" + "-".join(str(p) for p in pairs)


def _greedy(points: list[float], room: float, most: int = MAX_JOB_POINTS) -> list[int]:
    """Part sizes when each part takes consecutive points while they fit in `room`, at
    most `most` of them."""
    sizes: list[int] = []
    used = room + 1.0
    for p in points:
        if sizes and sizes[-1] < most and used + p <= room + _SLACK:
            sizes[-1] += 1
            used += p
        else:
            sizes.append(1)
            used = p
    return sizes


def split(points: list[float], room: float, most: int = MAX_JOB_POINTS) -> list[int]:
    """Sizes of the fewest parts of consecutive points that each fit in `room` and hold at
    most `most` points, as even as they can be: the longest part is (within a second) as
    short as the fewest parts allow. Every point must fit in `room` on its own."""
    if sum(points) <= room + _SLACK and len(points) <= most:
        return [len(points)]
    fewest = len(_greedy(points, room, most))
    low, high = max(points), room  # high always gives `fewest` parts
    while high - low > 1 / 60:
        mid = (low + high) / 2
        if len(_greedy(points, mid, most)) <= fewest:
            high = mid
        else:
            low = mid
    return _greedy(points, high, most)
