"""generator/verdicts/replay.py: the rule on one series, run by run (badness, sd 0.1)."""

from __future__ import annotations

import math

import pytest

from generator.verdicts.replay import (
    BY_AB,
    BY_RUNS,
    CLEARED,
    CONFIRMED,
    RECOVERED,
    Thresholds,
    replay,
    stretch_z,
)

RULE = Thresholds(suspect=2.0, confirm=3.0, keep=2.0, window=8, min_runs=3)
CLEAN = [0.0] * 10
REFERENCE = (2, 3, 4, 5, 6, 7, 8, 9)  # the last `window` runs before the onset


def test_a_step_that_stays_is_suspected_then_confirmed_on_its_second_run() -> None:
    [f] = replay([*CLEAN, 1.0, 1.0, 1.0], 0.1, RULE)
    assert (f.onset, f.reference, f.stretch) == (10, REFERENCE, [10, 11, 12])
    assert (f.state, f.confirmed_at, f.confirmed_by, f.open) == (CONFIRMED, 11, BY_RUNS, True)


def test_one_bad_run_then_normal_ones_is_cleared_by_the_runs() -> None:
    [f] = replay([*CLEAN, 1.0, 0.0, 0.0], 0.1, RULE)
    assert (f.state, f.stretch, f.closed_at, f.cleared_by, f.open) == (
        CLEARED, [10, 11], 11, BY_RUNS, False,
    )  # fmt: skip


def test_an_ab_that_clears_closes_each_finding_on_its_own_run() -> None:
    found = replay([*CLEAN, 1.0, 1.0, 1.0], 0.1, RULE, lambda _f, _i: CLEARED)
    assert [(f.onset, f.state, f.cleared_by) for f in found] == [
        (10, CLEARED, BY_AB), (11, CLEARED, BY_AB), (12, CLEARED, BY_AB),
    ]  # fmt: skip


def test_a_confirmed_change_whose_last_two_runs_are_back_recovers() -> None:
    [f] = replay([*CLEAN, *[1.0] * 6, 0.0, 0.0], 0.1, RULE)
    assert (f.state, f.confirmed_at, f.closed_at, f.stretch) == (
        RECOVERED, 11, 17, [10, 11, 12, 13, 14, 15],
    )  # fmt: skip


def test_too_short_a_reference_judges_nothing() -> None:
    assert replay([0.0, None, 1.0], 0.1, RULE) == []


def test_the_stretch_z_without_its_worst_run() -> None:
    z, rest = stretch_z([1.0, 1.0, 2.0], 0.5, 4)
    assert (z, rest) == pytest.approx((3.4914862437758782, 2.3094010767585034))
    assert stretch_z([1.0], 0.5, 4) == pytest.approx((1.7888543819998317, -math.inf))
