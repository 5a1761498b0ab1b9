"""Work several stages of one command share (cells, servers, indexes), done once per catalog.

A catalog is frozen, so what is computed from it holds as long as it lives; the memo of a
catalog goes away with it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")

_MEMOS: dict[int, dict[Hashable, Any]] = {}


def _memo(catalog: object) -> dict[Hashable, Any]:
    key = id(catalog)
    found = _MEMOS.get(key)
    if found is None:
        found = _MEMOS[key] = {}
        weakref.finalize(catalog, _MEMOS.pop, key, None)
    return found


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
