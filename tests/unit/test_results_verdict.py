from __future__ import annotations

import pytest

from generator.results.verdict import (
    IMPROVED,
    INSUFFICIENT,
    NEW,
    OK,
    REGRESSION,
    SUSPECTED,
    Rule,
    Stats,
    classify,
    worst,
)

THROUGHPUT = Rule(higher_is_better=True, k=3.0, min_change=0.05, min_runs=3)
LATENCY = Rule(higher_is_better=False, k=3.0, min_change=0.10, min_runs=3)
BASE = Stats(median=100.0, mad=1.0, n=7)


def test_the_band_is_the_larger_of_k_mads_and_the_minimum_change() -> None:
    assert THROUGHPUT.band(BASE) == pytest.approx(5.0)
    assert THROUGHPUT.band(Stats(median=100.0, mad=2.0, n=7)) == pytest.approx(3 * 1.4826 * 2)


@pytest.mark.parametrize(
    ("current", "verdict"),
    [(100.0, OK), (95.5, OK), (94.0, SUSPECTED), (89.0, REGRESSION), (106.0, IMPROVED)],
)
def test_a_throughput_is_judged_against_its_band(current: float, verdict: str) -> None:
    assert classify(THROUGHPUT, current, BASE) == verdict


def test_a_latency_is_worse_when_higher() -> None:
    assert classify(LATENCY, 115.0, BASE) == SUSPECTED
    assert classify(LATENCY, 85.0, BASE) == IMPROVED


def test_a_crossing_confirmed_by_the_previous_run_is_a_regression() -> None:
    previous_base = Stats(median=100.0, mad=1.0, n=6)
    assert classify(THROUGHPUT, 93.0, BASE, 92.0, previous_base) == REGRESSION
    assert classify(THROUGHPUT, 93.0, BASE, 99.0, previous_base) == SUSPECTED


def test_a_previous_run_without_a_judgeable_baseline_confirms_nothing() -> None:
    assert classify(THROUGHPUT, 93.0, BASE, 92.0, Stats(median=100.0, mad=1.0, n=2)) == SUSPECTED
    assert classify(THROUGHPUT, 93.0, BASE, 92.0, None) == SUSPECTED


def test_no_history_is_new_and_short_history_is_insufficient() -> None:
    assert classify(THROUGHPUT, 50.0, None) == NEW
    assert classify(THROUGHPUT, 50.0, Stats(median=100.0, mad=0.0, n=2)) == INSUFFICIENT


def test_the_worst_verdict_wins() -> None:
    assert worst([OK, IMPROVED, SUSPECTED]) == SUSPECTED
    assert worst([]) == OK
