"""generator/verdicts/noise.py: a metric's noise, shared by a server's points and each
point's own, measured robustly and weighed with the policy's prior."""

from __future__ import annotations

import math

import pytest

from generator.verdicts.noise import HistoryNoise, Table, efficiency, measure, own

TABLE = Table(values=[[1.0, 2.0, None], [1.5, 2.5, 3.0], [1.0, None, 3.2]])


def test_a_median_of_many_points_weighs_pi_over_two_of_their_mean() -> None:
    assert (efficiency(1), efficiency(2), efficiency(3)) == (1.0, 1.0, math.pi / 2)


def test_each_points_center_is_its_median_over_the_runs_before() -> None:
    assert TABLE.centers() == [1.0, 2.25, 3.1]
    assert TABLE.centers(upto=1) == [1.0, 2.0, None]


def test_a_runs_level_and_each_points_residual_beyond_it() -> None:
    centers = TABLE.centers()
    levels = TABLE.levels(centers)
    assert levels == pytest.approx([-0.125, 0.25, 0.05])
    residuals = TABLE.residuals(centers, levels)
    assert [[r is None for r in row] for row in residuals] == [
        [False, False, True], [False, False, False], [False, True, False],
    ]  # fmt: skip
    assert residuals[1] == pytest.approx([0.25, 0.0, -0.35])


def test_without_a_history_the_noise_is_the_prior_half_of_it_shared() -> None:
    prior = measure([], 0.02)
    assert (prior.shared, prior.point, prior.measured) == pytest.approx(
        (0.02 / math.sqrt(2),) * 2 + (0,)
    )
    measured = measure([TABLE], 0.02)
    assert measured.measured == 2
    assert (measured.shared, measured.point) == pytest.approx(
        (0.12063696612006546, 0.09512173179394504)
    )


def test_a_level_over_more_points_is_less_noisy() -> None:
    noise = HistoryNoise(shared=0.01, point=0.02, measured=3)
    assert noise.level(1) == pytest.approx(math.sqrt(0.01**2 + 0.02**2))
    assert noise.level(4) == pytest.approx(math.sqrt(0.01**2 + math.pi / 2 * 0.02**2 / 4))


def test_a_series_own_noise_is_weighed_with_the_prior() -> None:
    assert own([None], 0.02) == 0.02
    # Three differences of 0.1, -0.1 and 0.1: a MAD of zero, the prior weighing ten of 13.
    assert own([0.0, 0.1, 0.0, 0.1], 0.02) == pytest.approx(math.sqrt(10 * 0.02**2 / 13))
