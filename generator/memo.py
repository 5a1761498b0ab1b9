"""Work several stages of one command share (cells, servers, indexes), done once per catalog.

A catalog is frozen, so what is computed from it holds as long as it lives. The memos of the
last few catalogs are kept (a command uses one; tests switch between a few).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

KEPT = 4
# id(catalog) -> (the catalog, kept alive so its id stays its own; its memo), oldest first.
_MEMOS: dict[int, tuple[object, dict[Hashable, Any]]] = {}


def _memo(catalog: object) -> dict[Hashable, Any]:
    key = id(catalog)
    found = _MEMOS.get(key)
    if found is not None and found[0] is catalog:
        return found[1]
    _MEMOS[key] = found = (catalog, {})
    while len(_MEMOS) > KEPT:
        del _MEMOS[next(iter(_MEMOS))]
    return found[1]


def once(catalog: object, what: Hashable, make: Callable[[], T]) -> T:
    """`make()` the first time `what` is asked of this catalog; the same value after."""
    memo = _memo(catalog)
    if what not in memo:
        memo[what] = make()
    value: T = memo[what]
    return value


def once_for(catalog: object, owner: object, what: Hashable, make: Callable[[], T]) -> T:
    """As `once`, for a value computed from `owner` (a config or case of the catalog)."""
    memo = _memo(catalog)
    key = (id(owner), what)
    hit = memo.get(key)
    if hit is not None and hit[0] is owner:  # the entry keeps `owner` alive, so ids stay apart
        value: T = hit[1]
        return value
    made = make()
    memo[key] = (owner, made)
    return made
