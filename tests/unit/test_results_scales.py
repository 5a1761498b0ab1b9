"""generator/results/scales.py: each metric's badness, and changes read back from it."""

from __future__ import annotations

import math

import pytest

from generator.results.scales import Scale

THROUGHPUT = Scale(metric="output_throughput_per_gpu")
TTFT = Scale(metric="median_ttft_ms")
ACCEPTANCE = Scale(metric="acceptance_rate")


def test_badness_grows_as_a_metric_gets_worse() -> None:
    assert THROUGHPUT.badness(math.e) == -1.0
    assert TTFT.badness(math.e) == 1.0
    assert ACCEPTANCE.badness(0.75) == -0.75


@pytest.mark.parametrize("value", [None, 0.0, -1.0, math.inf, math.nan])
def test_a_log_scale_takes_no_value_that_is_not_positive_and_finite(value: float | None) -> None:
    assert THROUGHPUT.badness(value) is None


def test_a_linear_scale_takes_zero() -> None:
    assert ACCEPTANCE.badness(0.0) == 0.0


def test_value_reads_badness_back() -> None:
    assert THROUGHPUT.value(-1.0) == math.e
    assert TTFT.value(0.0) == 1.0
    assert ACCEPTANCE.value(-0.5) == 0.5


def test_relative_is_the_change_of_the_value_signed_as_it_moved() -> None:
    assert THROUGHPUT.relative(math.log(2), 0.0) == pytest.approx(-0.5)
    assert TTFT.relative(math.log(2), 0.0) == pytest.approx(1.0)
    assert ACCEPTANCE.relative(0.1, -0.5) == pytest.approx(-0.2)
    assert ACCEPTANCE.relative(0.1, 0.0) == 0.0  # no change is relative to nothing


def test_the_floor_is_a_thousandth_of_the_level_on_a_linear_scale() -> None:
    assert THROUGHPUT.floor(5.0) == 0.001
    assert ACCEPTANCE.floor(-0.5) == pytest.approx(0.0005)
    assert (THROUGHPUT.higher_is_better, TTFT.higher_is_better) == (True, False)
    assert (THROUGHPUT.log, ACCEPTANCE.log) == (True, False)
