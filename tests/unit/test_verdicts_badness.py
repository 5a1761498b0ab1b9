"""generator/verdicts/badness.py: a series as badness tables, a finding measured on one."""

from __future__ import annotations

import math

import pytest

from generator.results.history import PointKey, RunInfo, Sample, ServerSeries
from generator.verdicts.badness import badness_table, change_of, measured, metrics_of, points_of
from generator.verdicts.replay import Finding
from tests.series_gen import KEY

A = PointKey(isl=1024, osl=1024, concurrency=4)
B = PointKey(isl=1024, osl=1024, concurrency=8)
THROUGHPUT = "output_throughput_per_gpu"
SERIES = ServerSeries(
    key=KEY,
    runs=tuple(RunInfo(name=f"run-{i}") for i in range(3)),
    samples={
        A: (
            Sample(values={THROUGHPUT: math.e}),
            Sample(values={THROUGHPUT: 1.0, "acceptance_rate": 0.5}),
            None,
        ),
        B: (
            Sample(values={"median_ttft_ms": 1.0}),
            None,
            Sample(values={"median_ttft_ms": math.e}),
        ),
    },
    acceptance=frozenset({A}),
)


def test_the_metrics_a_series_reports_in_the_catalogs_order() -> None:
    assert metrics_of(SERIES) == [THROUGHPUT, "median_ttft_ms", "acceptance_rate"]


def test_the_acceptance_rate_is_judged_only_at_its_points() -> None:
    assert points_of(SERIES, "acceptance_rate") == [A]
    assert points_of(SERIES, "median_ttft_ms") == [A, B]


def test_a_table_is_runs_by_points_in_badness() -> None:
    assert badness_table(SERIES, THROUGHPUT)[1].values == [[-1.0, None], [0.0, None], [None, None]]
    assert badness_table(SERIES, "median_ttft_ms")[1].values == [
        [None, 0.0], [None, None], [None, 1.0],
    ]  # fmt: skip


def test_a_finding_measures_its_mean_worsening_over_its_runs_with_values() -> None:
    f = Finding(onset=2, reference=(0, 1), stretch=[2, 3])
    found = measured(THROUGHPUT, None, f, [0.0, 0.2, 0.5, None], 0.1, 1.0)
    assert (found.metric, found.point, found.reference) == (THROUGHPUT, None, 1.0)
    assert (found.worse, found.se) == pytest.approx((0.4, 0.1 * math.sqrt(1.5)))


def test_a_change_is_relative_with_its_95_percent_interval() -> None:
    halved = change_of(THROUGHPUT, math.log(2), 0.0, 0.0)
    assert (halved.change, halved.low, halved.high) == pytest.approx((-0.5,) * 3)
    slower = change_of("median_ttft_ms", 0.1, 0.05, 0.0)
    assert slower.change == pytest.approx(math.exp(0.1) - 1)
    assert (slower.low, slower.high) == pytest.approx(
        (math.exp(0.1 - 1.959964 * 0.05) - 1, math.exp(0.1 + 1.959964 * 0.05) - 1)
    )
