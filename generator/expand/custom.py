"""Ad-hoc selections a dispatch asks for: chosen configs, and points that replace their
grids (`ISL,OSL,CONC,RATIO;...`, the form the system we replace took). Cells, servers and
jobs are built as `expand` builds them, for these points only."""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator.catalog.catalog_types import PER_CELL, Catalog, Config, Pair
from generator.errors import SelectionError, did_you_mean
from generator.expand.cells import config_cells
from generator.expand.pack import pack
from generator.expand.select import check_mode, default_mode
from generator.expand.servers import config_server

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded, Job

# ISL and OSL of at most 9 digits (as the catalog's pairs), CONC of at most 6, RATIO of at
# most 12 characters: the numbers are read only once they fit.
_POINT = re.compile(
    r"^\s*(\d{1,9})\s*,\s*(\d{1,9})\s*,\s*(\d{1,6})\s*,\s*([0-9]{0,3}\.?[0-9]{1,8})\s*$"
)
MAX_POINTS = 256
MAX_POINTS_CHARS = 64 * 1024


@dataclass(frozen=True, kw_only=True)
class Point:
    pair: Pair
    concurrency: int
    ratio: float


def parse_points(text: str) -> tuple[Point, ...]:
    """`ISL,OSL,CONC,RATIO;...` as points; SelectionError naming the first bad item."""
    if len(text) > MAX_POINTS_CHARS:
        msg = f"points: {len(text):,} characters; at most {MAX_POINTS_CHARS:,}"
        raise SelectionError(msg)
    items = [item for item in text.split(";") if item.strip()]
    if not items:
        msg = "points: give at least one ISL,OSL,CONC,RATIO"
        raise SelectionError(msg)
    if len(items) > MAX_POINTS:
        msg = f"points: {len(items)} items; at most {MAX_POINTS}"
        raise SelectionError(msg)
    out: list[Point] = []
    for n, item in enumerate(items, 1):
        match = _POINT.match(item)
        shown = item.strip() if len(item.strip()) <= 40 else item.strip()[:37] + "..."
        if match is None:
            msg = (
                f"points: item {n} '{shown}' is not ISL,OSL,CONC,RATIO (e.g. 1024,1024,64,0.8; "
                "ISL and OSL of at most 9 digits, CONC of at most 6)"
            )
            raise SelectionError(msg)
        isl, osl, conc, ratio = int(match[1]), int(match[2]), int(match[3]), float(match[4])
        if min(isl, osl, conc) < 1 or not 0 < ratio <= 1:
            msg = (
                f"points: item {n} '{shown}' needs ISL, OSL and CONC of at least 1 "
                "and a RATIO in (0, 1]"
            )
            raise SelectionError(msg)
        point = Point(pair=Pair(isl=isl, osl=osl), concurrency=conc, ratio=ratio)
        if point not in out:
            out.append(point)
    return tuple(out)


def find_configs(expanded: Expanded, text: str, suite: str | None = None) -> tuple[Config, ...]:
    """Comma-separated config prefixes, in the order given; SelectionError for an unknown one
    (naming the configs of `suite`, when given, it could have meant)."""
    by_prefix = {c.prefix: c for c in expanded.catalog.configs}
    mine = [c.prefix for c in expanded.catalog.configs if suite is None or c.suite == suite]
    out: list[Config] = []
    for prefix in (p.strip() for p in text.split(",")):
        if not prefix:
            continue
        if prefix not in by_prefix:
            msg = f"configs: {_unknown(prefix, mine or list(by_prefix))}"
            raise SelectionError(msg)
        if by_prefix[prefix] not in out:
            out.append(by_prefix[prefix])
    if not out:
        msg = "configs: name at least one config prefix"
        raise SelectionError(msg)
    return tuple(out)


def _unknown(prefix: str, known: list[str]) -> str:
    """Why `prefix` names no config: the configs it begins, when it begins several (a
    family, not a config), else the closest prefix."""
    begun = [p for p in known if p.startswith(prefix)]
    if len(begun) > 1:
        shown = ", ".join(begun[:6]) + (f" and {len(begun) - 6} more" if len(begun) > 6 else "")
        return (
            f"no config has prefix '{prefix}'; it begins {len(begun)} configs: {shown}. "
            "Name each one, comma-separated, or choose a preset"
        )
    hint = f" (did you mean '{begun[0]}'?)" if begun else did_you_mean(prefix, known)
    return f"no config has prefix '{prefix}'{hint}"


def custom_jobs(
    expanded: Expanded, configs: tuple[Config, ...], points: tuple[Point, ...], mode: str | None
) -> tuple[Job, ...]:
    """The configs' jobs over `points` instead of their grids, one server per config."""
    catalog: Catalog = expanded.catalog
    check_mode(catalog, (c.suite for c in configs), mode, None)
    jobs: list[Job] = []
    for config in configs:
        chosen = mode or default_mode(catalog, config)
        grid = tuple((p.pair, p.concurrency, p.ratio) for p in points)
        servers = {p.pair: config_server(catalog, config, p.pair, chosen) for p in points}
        cells = config_cells(catalog, config, servers, grid)
        jobs += pack(catalog, config, cells, per_cell=config.packing == PER_CELL)
    return tuple(jobs)
