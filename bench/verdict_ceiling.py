"""What any rule could reach on the verdict bench's noise (bench_verdicts.py): an oracle
judged by Monte Carlo, for comparison with the rule `results compare` uses.

The oracle judges a config's pooled series (the median over its points of each point's
log deviation, as judge.py pools them) with what no real rule has: the noise's standard
deviation known exactly and Gaussian noise only (no outliers, lost runs, bimodal
configs). At each run it compares the mean of the last m runs, for every m from 2 to 7,
with the mean of the WINDOW runs before them and confirms when one of them lies `c`
standard errors beyond it (a confirmation always takes two runs, as the real rule's). A
confirmation is an event: the oracle stays quiet for COOL runs after one.

Its threshold `c` is set so that its false confirmations per clean server-run equal a
given rate; the detection rates it then reaches are what this test reaches at that rate
of false alarms, knowing what a real rule must estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from verdict_history import part_sd

WINDOW = 30
LONGEST = 7
COOL = 3
CLEAN_TRIALS = 20_000
CLEAN_RUNS = 100
STEP_TRIALS = 20_000
BEFORE = 8  # clean runs before a step
SEED = 2026


def pooled_sd(cv: float, points: int, *, draws: int = 400_000, seed: int = SEED) -> float:
    """The standard deviation of a run's pooled value for a config of `points` points
    under verdict_history.py's noise (its shared and own parts), the pooled value their
    median."""
    rng = np.random.default_rng(seed)
    half = part_sd(cv)
    shared = rng.normal(0.0, half, draws)
    own = rng.normal(0.0, half, (draws, points))
    return float(np.std(shared + np.median(own, axis=1)))


def _confirmations(
    x: npt.NDArray[np.float64], c: float
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(confirmations per trial, first confirming run per trial or -1) of the oracle on
    `x`: standardised pooled values (trials x runs) against a level whose own error is
    that of a mean of WINDOW values."""
    trials, runs = x.shape
    sums = np.concatenate([np.zeros((trials, 1)), np.cumsum(x, axis=1)], axis=1)
    count = np.zeros(trials, dtype=int)
    first = np.full(trials, -1)
    quiet = np.zeros(trials, dtype=int)
    for t in range(runs):
        fire = np.zeros(trials, dtype=bool)
        for m in range(2, min(LONGEST, t + 1) + 1):
            mean = (sums[:, t + 1] - sums[:, t + 1 - m]) / m
            fire |= mean >= c * math.sqrt(1 / m + 1 / WINDOW)
        fire &= quiet == 0
        count += fire
        first = np.where(fire & (first < 0), t, first)
        quiet = np.where(fire, COOL, np.maximum(quiet - 1, 0))
    return count, first


def _clean(rng: np.random.Generator, trials: int, runs: int) -> npt.NDArray[np.float64]:
    level_error = rng.normal(0.0, math.sqrt(1 / WINDOW), (trials, 1))
    return rng.normal(0.0, 1.0, (trials, runs)) - level_error


def false_rate(c: float) -> float:
    """False confirmations per clean server-run at threshold `c`."""
    count, _ = _confirmations(_clean(np.random.default_rng(SEED), CLEAN_TRIALS, CLEAN_RUNS), c)
    return float(count.sum()) / (CLEAN_TRIALS * CLEAN_RUNS)


def threshold(rate: float) -> float:
    """The threshold whose false confirmations per clean server-run are `rate`."""
    low, high = 1.5, 5.0
    for _ in range(20):
        mid = (low + high) / 2
        if false_rate(mid) > rate:
            low = mid
        else:
            high = mid
    return high


def detected(c: float, shift: float, within: int) -> float:
    """The share of steps of `shift` standard deviations confirmed within `within` runs."""
    rng = np.random.default_rng(SEED + 1)
    x = _clean(rng, STEP_TRIALS, BEFORE + within)
    x[:, BEFORE:] += shift
    _, first = _confirmations(x, c)
    return float(np.mean(first >= BEFORE))


@dataclass(frozen=True)
class Ceiling:
    rate: float  # false confirmations per clean server-run
    c: float
    five: float  # -5% config-wide step confirmed within 4 runs
    two: float  # -2% within 7


def ceiling(rate: float, sd: float) -> Ceiling:
    c = threshold(rate)
    return Ceiling(
        rate=rate,
        c=c,
        five=detected(c, -math.log(0.95) / sd, 4),
        two=detected(c, -math.log(0.98) / sd, 7),
    )
