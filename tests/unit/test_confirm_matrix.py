"""How the confirmation matrix ranks a run's new suspected events and their points
(generator/confirm/matrix.py): by the largest change in units of its metric's minimum
change."""

from __future__ import annotations

import pytest

from generator.catalog.regression import Policy
from generator.confirm.matrix import severity

POLICY = Policy()  # min_change: throughput per GPU 5%, TTFT and TPOT 10%, acceptance 5%


def test_a_change_counts_in_units_of_its_metric_s_minimum_change() -> None:
    assert severity({"output_throughput_per_gpu": -0.11}, POLICY) == pytest.approx(2.2)
    assert severity({"median_ttft_ms": 0.16}, POLICY) == pytest.approx(1.6)
    assert severity({"acceptance_rate": -0.02, "median_tpot_ms": 0.3}, POLICY) == pytest.approx(3.0)


def test_a_slower_server_outranks_a_larger_latency_tail() -> None:
    ttft = {"median_ttft_ms": 0.16, "output_throughput_per_gpu": -0.01}
    slower = {"output_throughput_per_gpu": -0.11}
    ranked = sorted(
        {"ttft": ttft, "slower": slower}.items(), key=lambda kv: -severity(kv[1], POLICY)
    )
    assert [name for name, _ in ranked] == ["slower", "ttft"]


def test_unknown_metrics_and_missing_changes_count_nothing() -> None:
    assert severity({"output_throughput_per_gpu": None, "tokens": 0.9}, POLICY) == 0.0
    assert severity({}, POLICY) == 0.0
