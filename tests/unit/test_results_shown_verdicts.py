"""generator/results/shown_verdicts.py: the verdicts as shown, and the readers of their
numbers and pairs."""

from __future__ import annotations

from generator.results.shown_verdicts import (
    Move,
    PointVerdict,
    ShownCurveVerdict,
    Verdicts,
    number,
    pair_of,
)


def test_a_move_reads_with_its_interval_when_it_has_both_ends() -> None:
    assert Move(metric="m", change=-0.081, low=-0.09, high=-0.072).text == "-8.1% [-9.0%, -7.2%]"
    assert Move(metric="m", change=0.05, low=None, high=0.1).text == "+5.0%"


def test_a_pair_reads_from_its_isl_and_osl_else_its_text() -> None:
    assert (pair_of({"isl": 1, "osl": 2}), pair_of({"pair": "3x4"})) == ((1, 2), (3, 4))
    assert (pair_of({"pair": "ax4"}), pair_of({})) == ((0, 0), (0, 0))


def test_a_number_is_an_int_or_float_but_not_a_bool() -> None:
    assert (number(3), number(2.5), number(True), number("1")) == (3.0, 2.5, None, None)


def test_regressions_count_points_and_curves() -> None:
    point = PointVerdict(
        config="c", isl=1, osl=2, concurrency=4, verdict="regression", reason=None, metrics=()
    )
    curve = ShownCurveVerdict(
        config="c", isl=1, osl=2, verdict="regression", interactivity=None, change=None
    )
    verdicts = Verdicts(
        outcome="fail", reason=None, points=(point,), curves=(curve,), events=(), gates=(),
        missing_cases=(),
    )  # fmt: skip
    assert (point.pair, curve.pair, verdicts.regressions) == ("1x2", "1x2", 2)
