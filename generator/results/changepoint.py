"""Change points of a series with MongoDB's E-Divisive (`signal-processing-algorithms`,
its public API: `energy_statistics.e_divisive` under `determinism.deterministic_numpy_random`),
and the slow worsenings they reveal: small steps, staircases and drift that no single run
shows (docs/results.md, "Verdicts"; the choice of library is argued there).

E-Divisive splits a series where the distributions on both sides differ most, keeps a
split when a permutation test finds it significant at `p_value`, and goes on in each
part. Its permutations are drawn from numpy's generator, seeded here, so the same series
always gives the same change points.

A slow worsening at the series' last run: the last segment holds at least LAST runs (the
runs before the current one agree), and it ends a chain of segments each worse than the
one before; its reference is the segment before the chain (a full baseline: at least
`full` runs), its onset the chain's first run; the change (median of the last segment
against the reference's) is at least the floor, and the last segment's mean lies `min_z`
standard errors beyond the reference's.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from signal_processing_algorithms.determinism import deterministic_numpy_random
from signal_processing_algorithms.energy_statistics.energy_statistics import e_divisive

from generator.results.track import Finding, Level, inflate, robust

SEED = 20
# Too few values for a change point to mean anything.
MIN_VALUES = 8
LAST = 3

Detector = Callable[[Sequence[float], float, int], list[int]]


def edivisive(values: Sequence[float], p_value: float, permutations: int) -> list[int]:
    """Indices where a new segment starts (sorted), by E-Divisive."""
    with deterministic_numpy_random(SEED):
        found = e_divisive(list(values), pvalue=p_value, permutations=permutations)
    return sorted(int(i) for i in found)


@dataclass(frozen=True, kw_only=True)
class Slow:
    p_value: float
    permutations: int
    full: int
    min_z: float
    detector: Detector = edivisive


def segments(n: int, starts: Sequence[int]) -> list[range]:
    bounds = [0, *[s for s in starts if 0 < s < n], n]
    return [range(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def slow_finding(
    slow: Slow,
    indices: Sequence[int],
    values: Sequence[float],
    *,
    floor: Callable[[float], float],
    scale_floor: float,
) -> Finding | None:
    """The slow worsening that ends at the last of `values` (badness; `indices` are their
    runs), if any."""
    if len(values) < MIN_VALUES:
        return None
    parts = segments(len(values), slow.detector(values, slow.p_value, slow.permutations))
    if len(parts) < 2 or len(parts[-1]) < LAST:
        return None
    medians = [statistics.median(values[i] for i in part) for part in parts]
    first = len(parts) - 1
    while first > 0 and medians[first - 1] < medians[first]:
        first -= 1
    if first == len(parts) - 1 and medians[first - 1] >= medians[first]:
        return None
    if first == 0:
        return None
    before = parts[first - 1]
    if len(before) < slow.full:
        return None
    _, scale, df = robust(list(values), scale_floor)
    level = medians[first - 1]
    change = medians[-1] - level
    if change < floor(level):
        return None
    last = [values[i] for i in parts[-1]]
    gap = statistics.fmean(last) - statistics.fmean(values[i] for i in before)
    if gap < inflate(slow.min_z, df) * scale * math.sqrt(1 / len(last) + 1 / len(before)):
        return None
    ref = Level(level=level, scale=scale, runs=tuple(indices[i] for i in before), df=df)
    stretch = tuple(indices[i] for i in range(parts[first].start, len(values)))
    worse = tuple(values[i] - level for i in range(parts[first].start, len(values)))
    return Finding(onset=stretch[0], reference=ref, stretch=stretch, worse=worse, confirmed_at=None)
