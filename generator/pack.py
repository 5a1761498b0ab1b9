"""Cells that share a server become one job: one server launch, a sweep of points."""

from __future__ import annotations

from dataclasses import dataclass

from generator.expand import Cell, Server


@dataclass(frozen=True, kw_only=True)
class Job:
    id: str
    server: Server
    cells: tuple[Cell, ...]


def pack(cells: list[Cell]) -> list[Job]:
    """Group cells by server fingerprint, keeping catalog order (pair, then concurrency)."""
    groups: dict[tuple[object, ...], list[Cell]] = {}
    for cell in cells:
        key = (cell.config.prefix, *cell.server.fingerprint())
        groups.setdefault(key, []).append(cell)
    jobs = []
    for group in groups.values():
        config = group[0].config
        pairs = list(dict.fromkeys(c.pair for c in group))
        all_pairs = [p for p, _ in config.grid]
        suffix = "" if pairs == all_pairs else "-" + "-".join(str(p) for p in pairs)
        jobs.append(Job(id=config.prefix + suffix, server=group[0].server, cells=tuple(group)))
    return jobs
