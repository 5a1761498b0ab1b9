"""The A/B noise model (generator/core/ab_noise.py): the standard error of either mode."""

from __future__ import annotations

import math

import pytest

from generator.core import ab_noise, ab_order


def test_a_parallel_ab_keeps_its_launch_offset_however_many_repeats() -> None:
    # One launch per side, each on its half of the GPUs: offsets no repeat averages out.
    noise = ab_noise.DEFAULT_NOISE
    assert noise.se(ab_order.PARALLEL, 2, 100) == pytest.approx(
        math.sqrt(2 * 0.014**2 + 0.028**2 / 200), rel=1e-9
    )
    assert noise.se(ab_order.RESTART, 2, 100) == pytest.approx(
        math.sqrt((0.014**2 * 199 / 100 + 0.028**2 / 2) / 100), rel=1e-9
    )
    assert ab_noise.z_of(0.975) == pytest.approx(1.959964, rel=1e-6)
