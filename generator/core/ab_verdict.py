"""The verdict of an A/B's measured pairs (standard library only).

**Verdict** of one metric: for each repeat, the mean over the points of log(B / A), w_r,
counted positive in the metric's bad direction. Their mean over the K repeats is tested,
one-sided, against no change: z = mean / se, confirmed when z >= z(level) (the normal
quantile), cleared when the bound mean + z(level) x se still lies short of the metric's
minimum change (whatever changed is too small to fail a run), else inconclusive (the event
stays suspected and the next run decides). The minimum change decides what fails a run,
not whether a real change is confirmed.

A job of several points also judges each point alone, so that a change at one point is not
averaged away by the points that did not change: a job whose mean is cleared while one
point alone is confirmed is inconclusive; one point alone never confirms a job.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, replace

from generator.core.ab_noise import DEFAULT_NOISE, Noise, z_of
from generator.core.ab_order import RESTART, A, B

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from generator.core.record_types import PointRecord

CONFIRMED, CLEARED, INCONCLUSIVE = "confirmed", "cleared", "inconclusive"


@dataclass(frozen=True, kw_only=True)
class Judgement:
    """The verdict on one metric: the geometric-mean ratio B / A, its one-sided test and
    the interval exp(mean log ratio +- z(level) se)."""

    metric: str
    verdict: str
    ratio: float | None
    low: float | None
    high: float | None
    level: float
    repeats: int  # repeats with at least one complete pair
    pairs: int
    threshold: float  # the ratio B / A beyond which the change fails a run
    z: float | None = None  # the worsening in standard errors
    se: float | None = None  # the standard error of the mean log ratio
    reason: str | None = None
    point: str | None = None  # one point's pairs alone; None: the mean over the points

    @property
    def what(self) -> str:
        """The metric, and the point when judged at one point alone."""
        return self.metric if self.point is None else f"{self.metric} at {self.point}"


def judge(
    metric: str,
    pairs: Mapping[tuple[str, int], tuple[float, float]],
    *,
    higher_is_better: bool,
    min_change: float,
    level: float,
    how: str = RESTART,
    noise: Noise = DEFAULT_NOISE,
) -> Judgement:
    """The verdict of (point, repeat) -> (A value, B value) pairs of one metric."""
    threshold = 1 - min_change if higher_is_better else 1 + min_change
    by_repeat: dict[int, list[float]] = defaultdict(list)
    for (_, repeat), (a, b) in sorted(pairs.items()):
        if a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b):
            by_repeat[repeat].append(math.log(b / a))
    means = [sum(v) / len(v) for _, v in sorted(by_repeat.items())]
    count = sum(len(v) for v in by_repeat.values())
    base = Judgement(
        metric=metric,
        level=level,
        threshold=threshold,
        verdict=INCONCLUSIVE,
        ratio=math.exp(means[0]) if means else None,
        low=None,
        high=None,
        repeats=len(means),
        pairs=count,
    )
    if len(means) < 2:
        reason = f"{len(means)} repeat(s) with a valid A and B value; 2 are needed"
        return replace(base, reason=reason)
    k = len(means)
    mean = sum(means) / k
    points = max(len({p for p, _ in pairs}), 1)
    se = noise.se(how, points, k, statistics.stdev(means))
    worse = -mean if higher_is_better else mean  # log scale, positive: worse
    z = worse / se
    bound = worse + z_of(level) * se
    if z >= z_of(level):
        verdict = CONFIRMED
    elif bound < (-math.log(threshold) if higher_is_better else math.log(threshold)):
        verdict = CLEARED
    else:
        verdict = INCONCLUSIVE
    half = z_of(level) * se
    return replace(
        base,
        verdict=verdict,
        ratio=math.exp(mean),
        low=math.exp(mean - half),
        high=math.exp(mean + half),
        repeats=k,
        z=z,
        se=se,
    )


def overall(judgements: Iterable[Judgement]) -> str:
    """An event is confirmed when one of its metrics is over its points; cleared when all
    are and no point alone is confirmed."""
    judged = list(judgements)
    mean = [j.verdict for j in judged if j.point is None]
    if CONFIRMED in mean:
        return CONFIRMED
    alone = any(j.verdict == CONFIRMED for j in judged if j.point is not None)
    return CLEARED if mean and all(v == CLEARED for v in mean) and not alone else INCONCLUSIVE


@dataclass(frozen=True, kw_only=True)
class Rule:
    """How one metric of an event is judged."""

    higher_is_better: bool
    min_change: float


@dataclass(frozen=True, kw_only=True)
class Measurement:
    """One turn's outcome: its metric values, or None when its record is not valid."""

    side: str
    repeat: int
    point: str
    metrics: Mapping[str, float | None] | None


def from_record(side: str, repeat: int, point: str, record: PointRecord | None) -> Measurement:
    """A turn's measurement from its record: the numeric values of its metrics by name
    when the record is valid."""
    if record is None or not record["validity"]["valid"]:
        return Measurement(side=side, repeat=repeat, point=point, metrics=None)
    values = {k: v for k, v in record["metrics"].items() if isinstance(v, int | float)}
    return Measurement(side=side, repeat=repeat, point=point, metrics=values)


def judge_step(
    measured: Iterable[Measurement],
    rules: Mapping[str, Rule],
    level: float,
    how: str = RESTART,
    noise: Noise = DEFAULT_NOISE,
) -> tuple[str, list[Judgement]]:
    """The verdict of one A/B (every turn of it, made `how`) on each metric in `rules`
    over its points, then, with several points, at each point alone; and overall."""
    values: dict[tuple[str, str, int], Mapping[str, float | None]] = {}
    for m in measured:
        if m.metrics is not None:
            values[(m.side, m.point, m.repeat)] = m.metrics
    points = sorted({m.point for m in measured})
    judgements = []
    for metric, rule in sorted(rules.items()):
        pairs: dict[tuple[str, int], tuple[float, float]] = {}
        for (side, point, repeat), got in values.items():
            other = values.get((B, point, repeat))
            if side != A or other is None:
                continue
            a, b = got.get(metric), other.get(metric)
            if a is not None and b is not None:
                pairs[(point, repeat)] = (a, b)
        groups: list[tuple[str | None, dict[tuple[str, int], tuple[float, float]]]] = [
            (None, pairs)
        ]
        if len(points) > 1:
            groups += [(p, {k: v for k, v in pairs.items() if k[0] == p}) for p in points]
        for alone, mine in groups:
            j = judge(
                metric,
                mine,
                higher_is_better=rule.higher_is_better,
                min_change=rule.min_change,
                level=level,
                how=how,
                noise=noise,
            )
            judgements.append(replace(j, point=alone))
    return overall(judgements), judgements
