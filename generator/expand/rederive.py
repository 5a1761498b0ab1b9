"""A benchmark job entry derived again from the catalogs, for the config, server mode and
points an entry names: what `sglang-ci verify` checks a handed job against, and what an
A/B entry of some of a job's points is (`confirm matrix`), so the two never disagree."""

from __future__ import annotations

import re
from typing import Any

from generator.catalog.catalog_types import Catalog, Pair
from generator.errors import CheckFailed
from generator.expand.cells import GridPoint, config_cells
from generator.expand.entries import job_entry
from generator.expand.estimate import startup_minutes
from generator.expand.expanded import Job
from generator.expand.pack import pairs_suffix
from generator.expand.servers import config_server

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from generator.core.contract import JobEntry
    from generator.expand.expanded import Cell

_PART = re.compile(r"-([1-9][0-9]*)of([1-9][0-9]*)$")


class NotDerived(CheckFailed):
    """No job of the catalogs has this config, server mode, points and id (exit 1)."""


def _points(entry: Mapping[str, Any]) -> tuple[GridPoint, ...]:
    return tuple(
        (
            Pair(isl=int(p["isl"]), osl=int(p["osl"])),
            int(p["concurrency"]),
            float(p["random_range_ratio"]),
        )
        for p in entry["points"]
    )


def job_for(
    catalog: Catalog, entry: Mapping[str, Any], sha: str, *, named: bool = True
) -> JobEntry:
    """The job entry the catalogs at `sha` give for `entry`'s config, server mode and
    points (its image as handed); NotDerived when they give none of that id. With
    `named=False` the job takes the id `expand` gives a job of these points (an A/B of
    some points of a job is such a job)."""
    what = f"job {entry['id']}"
    config = next((c for c in catalog.configs if c.prefix == entry.get("config")), None)
    if config is None:
        msg = f"{what}: no config '{entry.get('config')}' in the catalogs at {sha[:12]}"
        raise NotDerived(msg)
    mode = str(entry["server_mode"])
    modes = catalog.suite(config.suite).server_modes
    if mode not in modes:
        msg = f"{what}: suite {config.suite} has no server mode '{mode}'"
        raise NotDerived(msg)
    points = _points(entry)
    servers = {pair: config_server(catalog, config, pair, mode) for pair, _, _ in points}
    cells = config_cells(catalog, config, servers, points)
    if len({c.server for c in cells}) != 1:
        msg = f"{what}: its points need more than one server; a job starts one"
        raise NotDerived(msg)
    base = config.prefix + pairs_suffix(config, cells)
    if named and not _named(str(entry["id"]), base, cells):
        msg = f"{what}: a job of these points is named {base}, a part of it or its cell"
        raise NotDerived(msg)
    job = Job(
        id=str(entry["id"]) if named else base,
        server=cells[0].server,
        cells=cells,
        startup_minutes=startup_minutes(catalog.estimates, config),
    )
    return job_entry(catalog, job, str(entry["image"]))


def _named(given: str, base: str, cells: Sequence[Cell]) -> bool:
    """Whether `given` is the name of a job of `cells`: `base`, a part of it, or its one
    cell's id."""
    part = _PART.search(given)
    if part is not None and int(part[1]) <= int(part[2]) and given == base + part[0]:
        return True
    return given == base or (len(cells) == 1 and given == cells[0].id)
