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

The same oracle with the standard deviation *estimated* (`df` degrees of freedom: each
trial's series judged in units of an estimate drawn as sigma * sqrt(chi2(df) / df), one
draw per trial, as a server's scale comes from its own history) shows what the estimate
alone costs, on Gaussian noise still: a real rule reads a server's last runs and must
learn its noise from them.
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


def _clean(
    rng: np.random.Generator, trials: int, runs: int, df: float | None
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """(clean standardised values, each trial's estimate of the standard deviation: 1
    when it is known, `df` None)."""
    level_error = rng.normal(0.0, math.sqrt(1 / WINDOW), (trials, 1))
    x = rng.normal(0.0, 1.0, (trials, runs)) - level_error
    if df is None:
        return x, np.ones((trials, 1))
    return x, np.sqrt(rng.chisquare(df, (trials, 1)) / df)


def false_rate(c: float, df: float | None = None) -> float:
    """False confirmations per clean server-run at threshold `c`."""
    x, estimate = _clean(np.random.default_rng(SEED), CLEAN_TRIALS, CLEAN_RUNS, df)
    count, _ = _confirmations(x / estimate, c)
    return float(count.sum()) / (CLEAN_TRIALS * CLEAN_RUNS)


def threshold(rate: float, df: float | None = None) -> float:
    """The threshold whose false confirmations per clean server-run are `rate`."""
    low, high = 1.5, 6.0
    for _ in range(20):
        mid = (low + high) / 2
        if false_rate(mid, df) > rate:
            low = mid
        else:
            high = mid
    return high


def detected(c: float, shift: float, within: int, df: float | None = None) -> float:
    """The share of steps of `shift` standard deviations confirmed within `within` runs."""
    rng = np.random.default_rng(SEED + 1)
    x, estimate = _clean(rng, STEP_TRIALS, BEFORE + within, df)
    x[:, BEFORE:] += shift
    _, first = _confirmations(x / estimate, c)
    return float(np.mean(first >= BEFORE))


@dataclass(frozen=True)
class Ceiling:
    rate: float  # false confirmations per clean server-run
    c: float
    five: float  # -5% config-wide step confirmed within 4 runs
    two: float  # -2% within 7


def ceiling(rate: float, sd: float, df: float | None = None) -> Ceiling:
    """The oracle at `rate` false confirmations per clean server-run, the noise's standard
    deviation `sd` known (`df` None) or estimated with `df` degrees of freedom."""
    c = threshold(rate, df)
    return Ceiling(
        rate=rate,
        c=c,
        five=detected(c, -math.log(0.95) / sd, 4, df),
        two=detected(c, -math.log(0.98) / sd, 7, df),
    )
