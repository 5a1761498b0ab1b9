"""Curves: output throughput per GPU at fixed interactivity (docs/results.md, "Curves").

A server's points of one ISL/OSL pair form a curve of throughput per GPU against
interactivity (tokens/s per user), one point per concurrency. At each interactivity the
run being judged measured, each earlier run's curve is interpolated, linearly on log-log
axes between its two neighbouring points, or extrapolated by one step: beyond its last
point by at most the width of its last segment, along that segment. A point beyond that
is left to its point verdict, and says so.

The noise of throughput at fixed interactivity is the point's own noise amplified by the
curve's local elasticity e = |d ln T / d ln i|: a server a little slower moves every point
along the diagonal (both throughput and interactivity lower), and read at the same
interactivity that is (1 + e) times the change. So an interactivity's band is k scales of
the point's throughput times (1 + e) (or the spread of the interpolated history, when
larger), and the minimum change. A batching change that trades latency for throughput
along the same curve leaves the curve where it was.

A run's curve is worse when two neighbouring interactivities are both worse beyond their
bands (one point's outlier is one interactivity); better likewise. Like a point, a curve
is suspected on its first worse run and confirmed when the next run of the server is worse
too; the runs before are judged against their own history, so a re-run gives the same.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from generator.results.track import Finding, Level, inflate, spread, trimmed
from generator.results.verdict import IMPROVED, INSUFFICIENT, NEW, OK, REGRESSION, SUSPECTED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.history import PointKey, ServerSeries

THROUGHPUT = "output_throughput_per_gpu"
Curve = Sequence[tuple[float, float]]  # (ln interactivity, ln throughput), by interactivity
# Runs before the current one whose curves are judged to know whether it is confirmed.
LOOKBACK = 4
# One step of extrapolation: the end segment's width (and a rounding error more).
STEP = 1 + 1e-9


def log_curve(points: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
    """(interactivity, throughput) pairs as a log-log curve (positive values only)."""
    return sorted((math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0)


def at(curve: Curve, x: float) -> float | None:
    """ln throughput of `curve` at ln interactivity `x`: interpolated, or extrapolated
    along the end segment by at most its width; None beyond."""
    if len(curve) < 2:
        return curve[0][1] if curve and curve[0][0] == x else None
    for (x0, y0), (x1, y1) in itertools.pairwise(curve):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    (a0, b0), (a1, b1) = curve[0], curve[1]
    if x < a0 and a0 - x <= (a1 - a0) * STEP and a1 > a0:
        return b0 + (b1 - b0) * (x - a0) / (a1 - a0)
    (a0, b0), (a1, b1) = curve[-2], curve[-1]
    if x > a1 and x - a1 <= (a1 - a0) * STEP and a1 > a0:
        return b1 + (b1 - b0) * (x - a1) / (a1 - a0)
    return None


def elasticity(curve: Curve, i: int) -> float:
    """The mean |slope| of the segments next to point `i` of a log-log curve."""
    slopes = []
    for a, b in ((i - 1, i), (i, i + 1)):
        if a >= 0 and b < len(curve) and curve[b][0] != curve[a][0]:
            slopes.append(abs((curve[b][1] - curve[a][1]) / (curve[b][0] - curve[a][0])))
    return statistics.fmean(slopes) if slopes else 0.0


@dataclass(frozen=True, kw_only=True)
class RunCurve:
    """One run's curve judged against its history."""

    worse: bool
    better: bool
    # ln interactivity and the relative change of the worst agreeing pair; its worsening
    # (badness) and scale
    interactivity: float | None
    change: float | None
    badness: float
    scale: float
    compared: int
    beyond: int  # current points outside the history's range (left to their points)
    reference: tuple[int, ...]
    df: float


@dataclass(frozen=True, kw_only=True)
class CurveResult:
    pair: tuple[int, int]
    verdict: str
    interactivity: float | None
    change: float | None
    compared: int
    note: str | None
    finding: Finding | None


def _curves(series: ServerSeries, points: Sequence[PointKey]) -> list[list[tuple[float, float]]]:
    out = []
    for i in range(len(series.runs)):
        found = []
        for p in points:
            s = series.samples[p][i]
            if s is None or s.interactivity is None or THROUGHPUT not in s.values:
                continue
            found.append((s.interactivity, s.values[THROUGHPUT]))
        out.append(log_curve(found))
    return out


def _scale(series: ServerSeries, p: PointKey, n: int) -> tuple[float, float]:
    values = [
        -math.log(s.values[THROUGHPUT])
        for s in series.samples[p][:n]
        if s is not None and s.values.get(THROUGHPUT, 0) > 0
    ]
    return spread(values)


def judge_run(
    series: ServerSeries,
    points: Sequence[PointKey],
    curves: Sequence[Curve],
    n: int,
    *,
    k: float,
    floor: float,
    window: int,
    min_runs: int,
) -> RunCurve | None:
    """Run `n`'s curve against the runs before it (None: no curve to judge)."""
    current = curves[n]
    if len(current) < 2:
        return None
    history = [i for i in range(n) if len(curves[i]) >= 2][-window:]
    by_x = {x: p for p in points for x in _x_of(series, p, n)}
    zs: list[tuple[float, float, float, float] | None] = []  # (z, worse, x, scale)
    beyond = 0
    dfs = []
    for i, (x, y) in enumerate(current):
        values = [v for v in (at(curves[h], x) for h in history) if v is not None]
        if len(values) < min_runs:
            zs.append(None)
            beyond += 1
            continue
        p = by_x.get(x)
        own, df = _scale(series, p, n) if p is not None else (0.0, 0.0)
        dfs.append(df)
        scale = max(own * (1 + elasticity(current, i)), spread(values)[0], 1e-3)
        worse = trimmed(values) - y  # badness: higher throughput is better
        zs.append((worse / scale, worse, x, scale))
    df = min(dfs) if dfs else 0.0
    least = inflate(k, df)
    pairs = [(a, b) for a, b in itertools.pairwise(zs) if a is not None and b is not None]
    compared = sum(z is not None for z in zs)
    worse_pairs = [
        (a, b) for a, b in pairs if min(a[0], b[0]) >= least and min(a[1], b[1]) >= floor
    ]
    better_pairs = [
        (a, b) for a, b in pairs if max(a[0], b[0]) <= -least and max(a[1], b[1]) <= -floor
    ]
    chosen = max(worse_pairs, key=lambda ab: min(ab[0][0], ab[1][0]), default=None)
    if chosen is None and pairs:
        chosen = max(pairs, key=lambda ab: min(ab[0][0], ab[1][0]))
    if chosen is None:
        return RunCurve(
            worse=False, better=False, interactivity=None, change=None, badness=0.0,
            scale=0.0, compared=compared, beyond=beyond, reference=tuple(history), df=df,
        )  # fmt: skip
    a, b = chosen
    badness = (a[1] + b[1]) / 2
    return RunCurve(
        worse=bool(worse_pairs),
        better=bool(better_pairs) and not worse_pairs,
        interactivity=math.exp(a[2] if a[0] <= b[0] else b[2]),
        change=math.exp(-badness) - 1,
        badness=badness,
        scale=(a[3] + b[3]) / 2,
        compared=compared,
        beyond=beyond,
        reference=tuple(history),
        df=df,
    )


def _x_of(series: ServerSeries, p: PointKey, n: int) -> list[float]:
    s = series.samples[p][n]
    if s is None or not s.interactivity or s.interactivity <= 0:
        return []
    return [math.log(s.interactivity)]


def judge_curve(
    series: ServerSeries,
    pair: tuple[int, int],
    *,
    k: float,
    floor: float,
    window: int,
    min_runs: int,
) -> CurveResult:
    """The verdict of the current run's curve of `pair`."""
    points = [p for p in series.samples if (p.isl, p.osl) == pair]
    curves = _curves(series, points)
    n = series.current

    def judge(i: int) -> RunCurve | None:
        return judge_run(
            series, points, curves, i, k=k, floor=floor, window=window, min_runs=min_runs
        )

    now = judge(n)
    if now is None:
        return CurveResult(pair=pair, verdict=OK, interactivity=None, change=None,
                           compared=0, note="fewer than two points", finding=None)  # fmt: skip
    earlier = [i for i in range(n) if len(curves[i]) >= 2]
    if not earlier:
        return CurveResult(pair=pair, verdict=NEW, interactivity=None, change=None,
                           compared=0, note=None, finding=None)  # fmt: skip
    note = (
        f"{now.beyond} point(s) beyond the history's interactivity range: left to their "
        "point verdicts"
        if now.beyond
        else None
    )
    if now.compared < 2:
        return CurveResult(
            pair=pair, verdict=INSUFFICIENT, interactivity=None, change=None, compared=0,
            note=note or "no two interactivities in common with enough of the history",
            finding=None,
        )  # fmt: skip
    if not now.worse:
        verdict = IMPROVED if now.better else OK
        return CurveResult(pair=pair, verdict=verdict, interactivity=now.interactivity,
                           change=now.change, compared=now.compared, note=note,
                           finding=None)  # fmt: skip
    streak = [(n, now)]
    for i in reversed(earlier[-LOOKBACK:]):
        before = judge(i)
        if before is None or not before.worse:
            break
        streak.insert(0, (i, before))
    onset = streak[0][0]
    first = streak[0][1]
    ref = Level(level=0.0, scale=first.scale, runs=first.reference, df=first.df)
    finding = Finding(
        onset=onset,
        reference=ref,
        stretch=tuple(i for i, _ in streak),
        worse=tuple(c.badness for _, c in streak),
        confirmed_at=streak[1][0] if len(streak) >= 2 else None,
    )
    return CurveResult(
        pair=pair,
        verdict=REGRESSION if finding.confirmed_at is not None else SUSPECTED,
        interactivity=now.interactivity,
        change=now.change,
        compared=now.compared,
        note=note,
        finding=finding,
    )
