"""Per-catalog memos: computed once per catalog, never shared between catalogs."""

from __future__ import annotations

import functools

from generator import memo


class Owner:
    """Stands in for a catalog, a config or a case."""


def test_a_value_is_made_once_per_catalog_and_what() -> None:
    catalog, calls = Owner(), []

    def make() -> int:
        calls.append(1)
        return len(calls)

    assert [memo.once(catalog, "x", make) for _ in range(3)] == [1, 1, 1]
    assert memo.once(catalog, "y", make) == 2


def test_catalogs_and_owners_never_share_values() -> None:
    first, second, owner, other = Owner(), Owner(), Owner(), Owner()
    assert memo.once(first, "x", lambda: "first") == "first"
    assert memo.once(second, "x", lambda: "second") == "second"
    assert memo.once_for(first, owner, "x", lambda: 1) == 1
    assert memo.once_for(first, other, "x", lambda: 2) == 2
    assert memo.once_for(first, owner, "x", lambda: 3) == 1


def test_only_the_last_catalogs_are_kept_and_a_dropped_one_is_computed_again() -> None:
    catalogs = [Owner() for _ in range(memo.KEPT + 1)]
    for i, catalog in enumerate(catalogs):
        memo.once(catalog, "x", functools.partial(str, i))
    assert memo.once(catalogs[0], "x", lambda: "again") == "again"
    assert memo.once(catalogs[-1], "x", lambda: "again") == str(memo.KEPT)
