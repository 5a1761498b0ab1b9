from __future__ import annotations

import pytest

from generator.results.curve import comparable, interpolate, judge
from generator.results.verdict import INSUFFICIENT, NEW, OK, REGRESSION, SUSPECTED, Rule
from tests.results_gen import CONCURRENCY, curve

RULE = Rule(higher_is_better=True, k=3.0, min_change=0.05, min_runs=3)


def model(along: float = 1.0, scale: float = 1.0) -> list[tuple[float, float]]:
    return sorted((x, y * scale) for x, y in (curve(c, along) for c in CONCURRENCY))


def test_interpolation_is_linear_between_neighbours_and_never_extrapolates() -> None:
    line = [(1.0, 10.0), (3.0, 30.0)]
    assert interpolate(line, 2.0) == pytest.approx(20.0)
    assert interpolate(line, 3.0) == pytest.approx(30.0)
    assert interpolate(line, 0.5) is None
    assert interpolate(line, 3.5) is None


def test_the_steep_low_concurrency_end_is_left_to_the_point_verdicts() -> None:
    # The model's elasticities: 11.1, 5.6, 2.8, 1.4, 0.7 from c=4 up: c=4 and c=8 drop out.
    kept = comparable(model())
    assert [round(x, 1) for x, _ in kept] == [33.3, 50.0, 66.7, 80.0]


def test_moving_along_the_same_curve_is_not_a_regression() -> None:
    history = [model() for _ in range(7)]
    assert judge(RULE, 7, model(along=0.85), history).verdict == OK


def test_a_lower_curve_is_a_regression_and_a_slightly_lower_one_suspected() -> None:
    history = [model() for _ in range(7)]
    assert judge(RULE, 7, model(scale=0.7), history).verdict == REGRESSION
    low = judge(RULE, 7, model(scale=0.93), history)
    assert low.verdict == SUSPECTED
    assert low.change == pytest.approx(-0.07)


def test_a_curve_without_history_is_new_and_one_out_of_range_insufficient() -> None:
    assert judge(RULE, 7, model(), []).verdict == NEW
    far = [[(1.0, 5.0), (2.0, 6.0)]] * 7
    judged = judge(RULE, 7, model(), far)
    assert (judged.verdict, judged.note) == (
        INSUFFICIENT,
        "no interactivity in common with enough of the history",
    )
