"""Curves (generator/results/curve.py): interpolation on log-log axes with one step of
extrapolation, the band scaled by elasticity, two neighbouring interactivities, a point
beyond the history's range, confirmation by the next run."""

from __future__ import annotations

import math

import pytest

from generator.results.curve import CurveResult, at, elasticity, judge_curve, log_curve
from generator.results.history import PointKey, Sample, ServerSeries
from generator.results.verdict import IMPROVED, NEW, OK, REGRESSION, SUSPECTED
from tests.series_gen import POINTS, sample, server, upto

PAIR = (1024, 1024)
CLEAN = 30


def judge(series: ServerSeries) -> CurveResult:
    return judge_curve(series, PAIR, k=2.7, floor=-math.log(0.95), window=30, min_runs=3)


def judged(series: ServerSeries) -> tuple[str, str | None]:
    c = judge(series)
    return c.verdict, c.note


def test_interpolation_is_log_linear_and_extrapolates_one_segment_only() -> None:
    line = log_curve([(10.0, 100.0), (20.0, 50.0)])  # slope -1 on log-log axes
    assert math.exp(at(line, math.log(15.0)) or 0) == pytest.approx(1000 / 15)
    assert math.exp(at(line, math.log(40.0)) or 0) == pytest.approx(25.0)  # one step beyond
    assert math.exp(at(line, math.log(5.0)) or 0) == pytest.approx(200.0)
    assert at(line, math.log(41.0)) is None  # further: left to the point verdicts
    assert at(line, math.log(4.9)) is None


def test_the_elasticity_is_the_mean_slope_next_to_a_point() -> None:
    line = log_curve([(10.0, 100.0), (20.0, 50.0), (40.0, 12.5)])  # slopes -1, -2
    assert [elasticity(line, i) for i in range(3)] == pytest.approx([1.0, 1.5, 2.0])


def test_a_curve_without_history_is_new() -> None:
    assert judged(server(1))[0] == NEW


def test_a_clean_run_is_ok() -> None:
    assert judged(server(CLEAN + 1)) == (OK, None)


def test_a_lower_curve_is_suspected_then_confirmed_by_the_next_run() -> None:
    shared = [1.0] * CLEAN + [0.9, 0.9]
    series = server(CLEAN + 2, shared=shared)
    assert judged(upto(series, CLEAN + 1))[0] == SUSPECTED
    c = judge(series)
    assert c.verdict == REGRESSION
    assert c.finding is not None
    assert (c.finding.onset, c.finding.confirmed_at) == (CLEAN, CLEAN + 1)
    assert c.change is not None
    assert c.change < -0.1  # amplified by the elasticity


def test_a_faster_curve_is_improved() -> None:
    series = server(CLEAN + 1, shared=[1.0] * CLEAN + [1.15])
    assert judged(series)[0] == IMPROVED


def test_one_interactivity_alone_does_not_move_a_curve() -> None:
    series = server(CLEAN + 2, speed={(r, POINTS[2]): 0.8 for r in (CLEAN, CLEAN + 1)})
    assert judged(series)[0] == OK


def test_moving_along_the_same_curve_is_not_a_regression() -> None:
    # A batching change: every point at 0.85 of its interactivity, on the same curve.
    def along(p: PointKey) -> Sample:
        base = sample(p, 1.0)
        i = (base.interactivity or 0) * 0.85
        t = 10.0 * (100.0 - i)  # tests/results_gen's curve
        return Sample(values={**base.values, "output_throughput_per_gpu": t}, interactivity=i)

    series = server(CLEAN, noise=0.005)
    moved = ServerSeries(
        key=series.key,
        runs=(*series.runs, series.runs[-1].__class__(name="run-moved", fingerprint="fp-a")),
        samples={p: (*v, along(p)) for p, v in series.samples.items()},
    )
    assert judged(moved)[0] == OK


def test_a_point_beyond_the_histories_range_is_left_to_its_point_verdict() -> None:
    # The current run adds a concurrency far below the history's (much higher
    # interactivity): no history curve reaches it even with one step of extrapolation.
    extra = PointKey(isl=1024, osl=1024, concurrency=1)
    series = server(CLEAN + 1)
    far = Sample(
        values={"output_throughput_per_gpu": 5.0}, interactivity=400.0
    )  # fmt: skip
    grown = ServerSeries(
        key=series.key,
        runs=series.runs,
        samples={**series.samples, extra: (*([None] * CLEAN), far)},
    )
    verdict, note = judged(grown)
    assert verdict == OK
    assert note == (
        "1 point(s) beyond the history's interactivity range: left to their point verdicts"
    )
