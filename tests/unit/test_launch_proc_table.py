"""generator.launch.proc_table: who descends from whom, and a group running, in a process table."""

from __future__ import annotations

from generator.launch.proc_table import Proc, descendants, group_running

TABLE = {
    1: Proc(1, 0, 1, zombie=False),
    10: Proc(10, 1, 10, zombie=False),
    11: Proc(11, 10, 10, zombie=False),
    12: Proc(12, 11, 12, zombie=True),
    20: Proc(20, 1, 20, zombie=False),
}


def test_descendants_follow_parents_across_groups_and_sessions() -> None:
    table = {
        pid: Proc(pid, ppid, pgrp, zombie=False)
        for pid, ppid, pgrp in [(10, 1, 10), (11, 10, 10), (12, 11, 12), (13, 12, 13), (20, 1, 20)]
    }
    assert descendants([10], table) == {11, 12, 13}
    assert descendants([12, 20], table) == {13}


def test_a_group_of_zombies_alone_is_not_running() -> None:
    assert group_running(10, TABLE)
    assert not group_running(12, TABLE)
    assert not group_running(99, TABLE)
