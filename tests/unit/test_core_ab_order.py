"""The A/B order (generator/core/ab_order.py): pure functions, no processes."""

from __future__ import annotations

import pytest

from generator.core import ab_order


def test_parallel_turns_alternate_per_point_and_swap_the_first_side_each_repeat() -> None:
    order = ab_order.turns(2, ["p1", "p2"], ab_order.PARALLEL)
    assert [(t.side, t.repeat, t.point) for t in order] == [
        ("A", 1, "p1"),
        ("B", 1, "p1"),
        ("A", 1, "p2"),
        ("B", 1, "p2"),
        ("B", 2, "p1"),
        ("A", 2, "p1"),
        ("B", 2, "p2"),
        ("A", 2, "p2"),
    ]
    assert order[4].tag == "p1-r2"


def test_restart_turns_form_k_plus_one_blocks() -> None:
    order = ab_order.turns(3, ["p1", "p2"], ab_order.RESTART)
    blocks = ab_order.blocks(order)
    assert [(b[0].side, len(b)) for b in blocks] == [("A", 2), ("B", 4), ("A", 4), ("B", 2)]
    assert len(blocks) == ab_order.launches(ab_order.RESTART, 3) == 4
    assert ab_order.launches(ab_order.PARALLEL, 3) == 2


@pytest.mark.parametrize(
    ("server", "runner", "how"),
    [(4, 8, "parallel"), (8, 8, "restart"), (2, 4, "parallel"), (4, 4, "restart")],
)
def test_two_servers_run_at_once_only_when_both_fit(server: int, runner: int, how: str) -> None:
    assert ab_order.mode(server, runner) == how
