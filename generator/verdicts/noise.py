"""The noise a metric has, measured over the whole history: every server's runs, not only
the server being judged, so that a server early in its life is judged with the noise the
history knows (docs/results.md, "The rule").

On its badness scale (results/scales.py) a metric's value at point p of a server on run t
is its point's level, plus an offset the run shares with every point of its server (a
launch, a machine), plus the point's own deviation:

    y[t, p] = c[p] + a[t] + e[t, p],   a ~ (0, shared^2),  e ~ (0, point^2)

A server's *level* on a run (the mean over its P points of y - c) then varies with
shared^2 + efficiency(P) x point^2 / P (the median over the points: a change at one point
does not move it). Both are measured from first differences between a server's
consecutive runs, which a step or an outlier moves once, with the median absolute
deviation (scipy's, normal-consistent): robust to what the verdicts look for. Where the
history holds too few differences, a prior (the policy's `noise`, half of its variance
shared) weighs as PRIOR_WEIGHT differences would.
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass

import numpy as np
from scipy.stats import median_abs_deviation

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

# How many differences the prior weighs: the history's own measure outweighs it once it
# has a few weeks of one server's runs.
PRIOR_WEIGHT = 10
FLOOR = 0.001  # the smallest standard deviation (a series of equal values has none)


def efficiency(points: int) -> float:
    """The variance of a median of `points` normal values, in variances of their mean:
    1 for one or two, pi / 2 for many."""
    return 1.0 if points <= 2 else math.pi / 2


@dataclass(frozen=True, kw_only=True)
class Table:
    """One metric of one server: its badness values, runs by points (None: no value)."""

    values: Sequence[Sequence[float | None]]

    @property
    def points(self) -> int:
        return len(self.values[0]) if self.values else 0

    def centers(self, upto: int | None = None) -> list[float | None]:
        """Each point's median over the runs before `upto` (all runs without it)."""
        rows = self.values[:upto]
        out: list[float | None] = []
        for p in range(self.points):
            found = [row[p] for row in rows if row[p] is not None]
            out.append(statistics.median(found) if found else None)  # type: ignore[type-var]
        return out

    def levels(self, centers: Sequence[float | None]) -> list[float | None]:
        """The server's level on each run: the median of its points' values less their
        centers (None for a run without a value)."""
        out: list[float | None] = []
        for row in self.values:
            devs = [
                v - c for v, c in zip(row, centers, strict=True) if v is not None and c is not None
            ]
            out.append(statistics.median(devs) if devs else None)
        return out

    def residuals(
        self, centers: Sequence[float | None], levels: Sequence[float | None]
    ) -> list[list[float | None]]:
        """Each point's deviation beyond its run's level, runs by points."""
        out: list[list[float | None]] = []
        for row, a in zip(self.values, levels, strict=True):
            out.append(
                [
                    None if v is None or c is None or a is None else v - c - a
                    for v, c in zip(row, centers, strict=True)
                ]
            )
        return out


@dataclass(frozen=True, kw_only=True)
class HistoryNoise:
    """A metric's noise: `shared` by a server's points on a run, each `point`'s own, and
    how many differences measured it."""

    shared: float
    point: float
    measured: int

    def level(self, points: int) -> float:
        """The standard deviation of a server's level on one run, over `points` points."""
        return math.sqrt(self.shared**2 + efficiency(points) * self.point**2 / max(points, 1))


def _mad_variance(diffs: Sequence[float]) -> float:
    """The variance of one value from differences of two (robust: the MAD)."""
    if not diffs:
        return 0.0
    scale = float(median_abs_deviation(np.asarray(diffs, dtype=float), scale="normal"))
    return scale**2 / 2


def measure(tables: Iterable[Table], prior: float) -> HistoryNoise:
    """The noise over `tables` (every server's series of one metric)."""
    level_diffs: list[float] = []
    inverse_points: list[float] = []
    point_diffs: list[float] = []
    for table in tables:
        centers = table.centers()
        levels = table.levels(centers)
        residuals = table.residuals(centers, levels)
        points = table.points
        previous: int | None = None
        for t, a in enumerate(levels):
            if a is None:
                continue
            if previous is not None:
                before = levels[previous]
                assert before is not None
                level_diffs.append(a - before)
                shown = sum(
                    residuals[t][p] is not None and residuals[previous][p] is not None
                    for p in range(points)
                )
                inverse_points.append(efficiency(shown) / max(shown, 1))
                # A residual less the mean of its run's P residuals keeps (P - 1) / P of
                # the point's variance.
                keep = math.sqrt(points / (points - 1)) if points > 1 else 1.0
                point_diffs += [
                    (r - b) * keep
                    for r, b in zip(residuals[t], residuals[previous], strict=True)
                    if r is not None and b is not None
                ]
            previous = t
    half = prior**2 / 2
    n_point = len(point_diffs)
    point_var = (n_point * _mad_variance(point_diffs) + PRIOR_WEIGHT * half) / (
        n_point + PRIOR_WEIGHT
    )
    n_level = len(level_diffs)
    own = _mad_variance(level_diffs) - point_var * (
        statistics.fmean(inverse_points) if inverse_points else 0.0
    )
    shared_var = (n_level * max(own, 0.0) + PRIOR_WEIGHT * half) / (n_level + PRIOR_WEIGHT)
    return HistoryNoise(
        shared=max(math.sqrt(shared_var), FLOOR),
        point=max(math.sqrt(point_var), FLOOR),
        measured=n_level,
    )


def own(values: Sequence[float | None], prior: float) -> float:
    """The standard deviation of one series (a server's level, a point's deviation) from
    its own first differences (robust), weighed with `prior` (the history's) as if the
    prior were PRIOR_WEIGHT differences: a series noisier or quieter than the history's
    others is judged by its own noise as its runs accumulate."""
    found = [v for v in values if v is not None]
    diffs = [b - a for a, b in itertools.pairwise(found)]
    n = len(diffs)
    variance = (n * _mad_variance(diffs) + PRIOR_WEIGHT * prior**2) / (n + PRIOR_WEIGHT)
    return max(math.sqrt(variance), FLOOR)
