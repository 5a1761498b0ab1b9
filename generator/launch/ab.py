"""The paired A/B measurement of two images on one runner: the order of the turns, and
the verdict of the measured pairs. Standard library only: the runner's confirmation job
bisects with it, `sglang-ci plan` counts with it, the summary judges with it.

**Order.** Each of K repeats measures every point on image A and on image B, the side
that goes first alternating by repeat (A B, B A, A B, ...), so a drift of the machine
during the job falls on both images alike. With both servers up at once (`parallel`:
the layout leaves room for two servers on the runner's GPUs) each turn is one point on
one side: two server launches. Otherwise (`restart`) a side keeps its server for its
turns in a row, which gives the blocks A | B B | A A | ... : K + 1 launches.

**Verdict** of one metric: for each repeat, the mean over the points of log(B / A), w_r,
counted positive in the metric's bad direction. Their mean over the K repeats is tested,
one-sided, against no change: z = mean / se, confirmed when z >= z(level) (the normal
quantile), cleared when the bound mean + z(level) x se still lies short of the metric's
minimum change (whatever changed is too small to fail a run), else inconclusive (the event
stays suspected and the next run decides). The minimum change decides what fails a run,
not whether a real change is confirmed.

The standard error comes from a noise model of two parts (`Noise`): a server launch's
offset (`launch`, shared by every point a launch serves) and one point's own measurement
(`point`). With n points and K repeats, restarting the servers (`restart`: the blocks
A | B B | A A | ..., consecutive repeats sharing one launch),
se^2 = (launch^2 (2K - 1) / K + point^2 / n) / K. With both servers up at once
(`parallel`) one launch per side serves every repeat, each side on its own half of the
GPUs: those offsets never average out, se^2 = 2 launch^2 + point^2 / (n K). The parts
are what the A/As of the runner label measured (generator/confirm/aa_noise.py, carried by
the job), else DEFAULT_NOISE; when the K repeats spread more than the model says, their
spread is used.
A job of several points also judges each point alone, so that a change at one point is not
averaged away by the points that did not change: a job whose mean is cleared while one
point alone is confirmed is inconclusive; one point alone never confirms a job.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, replace
from statistics import NormalDist

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

A, B = "A", "B"
PARALLEL, RESTART = "parallel", "restart"
CONFIRMED, CLEARED, INCONCLUSIVE = "confirmed", "cleared", "inconclusive"


@dataclass(frozen=True, kw_only=True)
class Noise:
    """The A/B's noise on a log scale, per repeat and side pair: a launch's offset
    (`launch`: the difference between two launches' offsets) and one point's measurement
    (`point`: the difference of an A and a B measurement at one point, same launches)."""

    launch: float
    point: float
    source: str  # where the figures come from: "default" or the A/A that measured them

    def se(self, how: str, points: int, repeats: int, spread: float = 0.0) -> float:
        """The standard error of the mean of `repeats` repeats' w over `points` points;
        `spread`: the standard deviation the repeats' w showed (0: not measured)."""
        per_repeat = self.point**2 / points
        if how == PARALLEL:
            # The two sides' launches, and the two halves of the runner's GPUs (taken as
            # far apart as two launches): offsets that no repeat averages out.
            return math.sqrt(2 * self.launch**2 + max(per_repeat, spread**2) / repeats)
        # Restarting, the blocks A | B B | A A | ... give consecutive repeats one launch
        # in common: the K repeats hold K + 1 launches, the middle ones serving two repeats.
        launches = self.launch**2 * (2 * repeats - 1) / repeats
        return math.sqrt(max(launches + per_repeat, spread**2) / repeats)

    def as_dict(self) -> dict[str, float | str]:
        return {"launch": self.launch, "point": self.point, "source": self.source}


# Without an A/A of the runner label: bench/bench_confirm.py's noise model (a point's CV 2%,
# a launch's 1%: sqrt(2) of each for a difference of two).
DEFAULT_NOISE = Noise(launch=0.014, point=0.028, source="default")


def z_of(level: float) -> float:
    """The one-sided normal quantile of `level` (1.96 at 0.975)."""
    return NormalDist().inv_cdf(level)


@dataclass(frozen=True, kw_only=True)
class Turn:
    """One point measured once on one side."""

    side: str
    repeat: int  # 1..K
    point: str

    @property
    def tag(self) -> str:
        """The id suffix of this measurement in its side's job: `<point>-r<repeat>`."""
        return f"{self.point}-r{self.repeat}"


def mode(server_gpus: int, runner_gpus: int) -> str:
    """`parallel` when two servers of this layout fit on the runner's GPUs at once."""
    return PARALLEL if 2 * server_gpus <= runner_gpus else RESTART


def first_side(repeat: int) -> str:
    return A if repeat % 2 == 1 else B


def turns(repeats: int, points: Iterable[str], how: str) -> list[Turn]:
    """Every measurement of the job, in the order it is made."""
    ids = list(points)
    out: list[Turn] = []
    for r in range(1, repeats + 1):
        sides = (A, B) if first_side(r) == A else (B, A)
        if how == PARALLEL:
            out += [Turn(side=s, repeat=r, point=p) for p in ids for s in sides]
        else:
            out += [Turn(side=s, repeat=r, point=p) for s in sides for p in ids]
    return out


def blocks(order: Iterable[Turn]) -> list[list[Turn]]:
    """The turns grouped into runs of one side (one server launch each when restarting)."""
    out: list[list[Turn]] = []
    for turn in order:
        if out and out[-1][0].side == turn.side:
            out[-1].append(turn)
        else:
            out.append([turn])
    return out


def launches(how: str, repeats: int) -> int:
    """Server launches of one A/B, none restarting on its own."""
    return 2 if how == PARALLEL else repeats + 1


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


@dataclass(frozen=True, kw_only=True)
class Bounds:
    """Where the first bad image lies among candidates 0..n-1 between the last good
    image (index -1) and the current one (index n): after `good`, at or before `bad`."""

    good: int
    bad: int
    stopped: bool  # an inconclusive step ended the bisection

    @property
    def exact(self) -> bool:
        return self.bad - self.good == 1


def bisect_bounds(count: int, steps: Iterable[tuple[int, str]]) -> Bounds:
    """The bounds after the bisection steps (candidate index, verdict against the last
    good image) made so far."""
    good, bad, stopped = -1, count, False
    for index, verdict in steps:
        if verdict == CONFIRMED:
            bad = min(bad, index)
        elif verdict == CLEARED:
            good = max(good, index)
        else:
            stopped = True
    return Bounds(good=good, bad=bad, stopped=stopped)


def bisect_next(count: int, steps: list[tuple[int, str]], max_steps: int) -> int | None:
    """The candidate to measure next, or None when the bisection is done: the first bad
    image is named, a step was inconclusive, or the steps are spent."""
    bounds = bisect_bounds(count, steps)
    if bounds.exact or bounds.stopped or len(steps) >= max_steps:
        return None
    return (bounds.good + bounds.bad) // 2


def bisect_steps(count: int) -> int:
    """Steps that name the first bad of `count` candidates (and the current image)."""
    return math.ceil(math.log2(count + 1)) if count else 0
