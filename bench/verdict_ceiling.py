"""What any rule could reach on the bench's histories (bench_verdicts.py prints it beside the
rule): an oracle judged by Monte Carlo at the rule's own measured rate of false
confirmations, history only and with the same A/B the rule has.

The oracle judges one series (a config's level, or one point's deviation) with what no
real rule has: its noise's standard deviation known exactly (the limit of a scale pooled
over the whole history), Gaussian noise only (no outliers, lost runs, second runners). At
each run it compares the mean of the last m runs, for every m from 2 to LONGEST, with the
mean of the WINDOW runs before them and confirms when one of them lies `c` standard
errors beyond it (a confirmation takes two runs, as the rule's does). With the A/B, every
run whose own value lies `suspect` standard errors beyond the level gets an A/B that
measures the true change with the A/B's standard deviation and confirms when it lies
`z_ab` of them beyond zero: the rule's A/B, run on the rule's suspicions. A confirmation
is an event: the oracle stays quiet for COOL runs after one.

Its threshold `c` is set so that its false confirmations per clean series-run (the A/B's
included) equal the given rate; the detection rates it then reaches bound what a rule
reaches at that rate of false alarms with that A/B.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

WINDOW = 30
LONGEST = 7
COOL = 3
CLEAN_TRIALS = 10_000
CLEAN_RUNS = 100
STEP_TRIALS = 10_000
BEFORE = 8  # clean runs before a step
SEED = 2026
NEVER = 99.0  # a threshold no history test reaches: the A/B alone confirms


@dataclass(frozen=True, kw_only=True)
class AB:
    """The A/B as the rule runs it: on a run `suspect` standard errors worse, the change
    measured with standard deviation `sd` (log), confirmed `z` of them beyond zero."""

    suspect: float
    sd: float
    z: float


def _confirmations(
    x: npt.NDArray[np.float64],
    c: float,
    ab: AB | None,
    change: float,
    rng: np.random.Generator,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(confirmations per trial, first confirming run per trial or -1) of the oracle on `x`:
    standardised values (trials x runs) against a level whose own error is that of a mean
    of WINDOW values; `change` the true change (log) of the runs where x was shifted."""
    trials, runs = x.shape
    sums = np.concatenate([np.zeros((trials, 1)), np.cumsum(x, axis=1)], axis=1)
    count = np.zeros(trials, dtype=int)
    first = np.full(trials, -1)
    quiet = np.zeros(trials, dtype=int)
    one = math.sqrt(1 + 1 / WINDOW)
    for t in range(runs):
        fire = np.zeros(trials, dtype=bool)
        for m in range(2, min(LONGEST, t + 1) + 1):
            mean = (sums[:, t + 1] - sums[:, t + 1 - m]) / m
            fire |= mean >= c * math.sqrt(1 / m + 1 / WINDOW)
        if ab is not None:
            true = change if t >= BEFORE and change else 0.0
            measured = true / ab.sd + rng.normal(0.0, 1.0, trials)
            fire |= (x[:, t] >= ab.suspect * one) & (measured >= ab.z)
        fire &= quiet == 0
        count += fire
        first = np.where(fire & (first < 0), t, first)
        quiet = np.where(fire, COOL, np.maximum(quiet - 1, 0))
    return count, first


def _clean(rng: np.random.Generator, trials: int, runs: int) -> npt.NDArray[np.float64]:
    level_error = rng.normal(0.0, math.sqrt(1 / WINDOW), (trials, 1))
    return rng.normal(0.0, 1.0, (trials, runs)) - level_error


def false_rate(c: float, ab: AB | None) -> float:
    """False confirmations per clean series-run at threshold `c`."""
    rng = np.random.default_rng(SEED)
    x = _clean(rng, CLEAN_TRIALS, CLEAN_RUNS)
    count, _ = _confirmations(x, c, ab, 0.0, rng)
    return float(count.sum()) / (CLEAN_TRIALS * CLEAN_RUNS)


def threshold(rate: float, ab: AB | None) -> float:
    """The history test's threshold whose false confirmations per clean series-run, the
    A/B's included, are `rate` (NEVER when the A/B alone exceeds it)."""
    if false_rate(NEVER, ab) > rate:
        return NEVER
    low, high = 1.0, 8.0
    for _ in range(16):
        mid = (low + high) / 2
        if false_rate(mid, ab) > rate:
            low = mid
        else:
            high = mid
    return high


def detected(c: float, ab: AB | None, change: float, sd: float, within: int) -> float:
    """The share of steps of `change` (log, worse positive) on a series of standard
    deviation `sd` confirmed within `within` runs."""
    rng = np.random.default_rng(SEED + 1)
    x = _clean(rng, STEP_TRIALS, BEFORE + within)
    x[:, BEFORE:] += change / sd
    _, first = _confirmations(x, c, ab, change, rng)
    return float(np.mean(first >= BEFORE))


@dataclass(frozen=True, kw_only=True)
class Ceiling:
    c: float
    five_2: float  # -5% config-wide step confirmed within 2 runs
    five_4: float  # within 4
    two_7: float  # -2% within 7
    point_2: float  # -10% at one point within 2


def ceiling(rate: float, level_sd: float, point_sd: float, ab: AB | None) -> Ceiling:
    """The oracle at `rate` false confirmations per clean series-run, on a config's level
    of standard deviation `level_sd` and one point's deviation of `point_sd`."""
    c = threshold(rate, ab)
    return Ceiling(
        c=c,
        five_2=detected(c, ab, -math.log(0.95), level_sd, 2),
        five_4=detected(c, ab, -math.log(0.95), level_sd, 4),
        two_7=detected(c, ab, -math.log(0.98), level_sd, 7),
        point_2=detected(c, ab, -math.log(0.90), point_sd, 2),
    )
