"""Curve-level verdicts: output throughput per GPU at fixed interactivity.

A config's points for one ISL/OSL pair form a curve: interactivity (tokens/s per user) on
x, output throughput per GPU on y, one point per concurrency. At each interactivity the
current run measured, every history run's curve is interpolated linearly between its two
neighbouring points (never extrapolated), and that value goes through the same verdict as
a point (verdict.classify). A batching change that moves points along the curve (more
throughput, less interactivity) leaves the curve where it was: no regression.

Where the curve is nearly vertical (low concurrency: throughput doubles while
interactivity hardly moves), throughput at a fixed interactivity is ill-defined: a 1%
shift in interactivity reads as a large change in throughput. A point is compared only
where the current curve's elasticity |d ln(throughput) / d ln(interactivity)| on one of
its sides is at most MAX_ELASTICITY; the point verdicts cover the rest.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from generator.results.verdict import INSUFFICIENT, NEW, Rule, Stats, classify, worst

Curve = Sequence[tuple[float, float]]
MAX_ELASTICITY = 4.0


def interpolate(curve: Curve, x: float) -> float | None:
    """y of `curve` (sorted by x) at `x`, or None outside its range."""
    if not curve or x < curve[0][0] or x > curve[-1][0]:
        return None
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return curve[-1][1] if x == curve[-1][0] else None


def stats(values: Sequence[float]) -> Stats | None:
    if not values:
        return None
    median = statistics.median(values)
    return Stats(
        median=median, mad=statistics.median(abs(v - median) for v in values), n=len(values)
    )


def _elasticity(a: tuple[float, float], b: tuple[float, float]) -> float:
    (x0, y0), (x1, y1) = a, b
    if min(x0, y0, x1, y1) <= 0 or x0 == x1:
        return math.inf
    return abs(math.log(y1 / y0) / math.log(x1 / x0))


def comparable(curve: Curve) -> list[tuple[float, float]]:
    """The points of `curve` (sorted by x) where it is flat enough to compare."""
    if len(curve) < 2:
        return list(curve)
    slopes = [_elasticity(a, b) for a, b in itertools.pairwise(curve)]
    return [
        point
        for i, point in enumerate(curve)
        if min(slopes[max(i - 1, 0) : i + 1]) <= MAX_ELASTICITY
    ]


@dataclass(frozen=True, kw_only=True)
class CurveJudgement:
    verdict: str
    # Where the curve is worst off: interactivity, relative change of throughput there.
    interactivity: float | None
    change: float | None
    compared: int
    note: str | None


def judge(rule: Rule, runs: int, current: Curve, history: Sequence[Curve]) -> CurveJudgement:
    """The verdict of `current` against `history` (newest run first), over the last `runs`
    runs that reach each interactivity."""
    if not history:
        return CurveJudgement(verdict=NEW, interactivity=None, change=None, compared=0, note=None)
    found: list[tuple[str, float, float]] = []
    for x, y in comparable(current):
        values = [v for v in (interpolate(h, x) for h in history) if v is not None]
        base = stats(values[:runs])
        if base is None:
            continue
        verdict = classify(rule, y, base, values[0], stats(values[1 : runs + 1]))
        found.append((verdict, x, (y - base.median) / base.median if base.median else 0.0))
    judged = [f for f in found if f[0] != INSUFFICIENT]
    if not judged:
        note = "no interactivity in common with enough of the history"
        return CurveJudgement(
            verdict=INSUFFICIENT, interactivity=None, change=None, compared=0, note=note
        )
    found = judged
    verdict = worst([v for v, _, _ in found])
    _, x, change = min(
        (f for f in found if f[0] == verdict),
        key=lambda f: f[2] if rule.higher_is_better else -f[2],
    )
    return CurveJudgement(
        verdict=verdict, interactivity=x, change=change, compared=len(found), note=None
    )
