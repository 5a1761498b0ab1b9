"""The process table from /proc: parents, groups, states, descendants, a group running."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


@dataclass(frozen=True)
class Proc:
    """One line of /proc/<pid>/stat: what the stop needs."""

    pid: int
    ppid: int
    pgrp: int
    zombie: bool


def processes() -> dict[int, Proc] | None:
    """Every process on this machine, or None where /proc cannot be read."""
    try:
        names = [entry.name for entry in Path("/proc").iterdir()]
    except OSError:
        return None
    table: dict[int, Proc] = {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            stat = Path("/proc", name, "stat").read_bytes()
        except OSError:
            continue
        fields = stat.rpartition(b")")[2].split()
        if len(fields) < 3:
            continue
        state, ppid, pgrp = fields[:3]
        table[int(name)] = Proc(int(name), int(ppid), int(pgrp), state in (b"Z", b"X"))
    return table


def descendants(roots: Iterable[int], table: Mapping[int, Proc]) -> set[int]:
    """The processes below `roots` in `table` (the roots not included)."""
    children: dict[int, list[int]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found: set[int] = set()
    todo = list(roots)
    while todo:
        for pid in children.get(todo.pop(), ()):
            if pid not in found:
                found.add(pid)
                todo.append(pid)
    return found


def group_alive(pgid: int) -> bool:
    """True while a member of process group `pgid` is running. Zombies do not count:
    an orphaned one waits for PID 1 to reap it and must not stall a shutdown."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    table = processes()
    if table is None:
        return True
    return any(p.pgrp == pgid and not p.zombie for p in table.values())


def group_running(pgid: int, table: Mapping[int, Proc]) -> bool:
    """A member of group `pgid` is running (in `table`, or where /proc cannot be read)."""
    if not table:
        return group_alive(pgid)
    return any(p.pgrp == pgid and not p.zombie for p in table.values())
