"""The sequential rule of one series: when a worsening opens, when it is confirmed, when it
closes. Pure arithmetic on badness values (scales.py), no I/O.

The series is replayed run by run over its last `window` runs, as the nightly verdicts
would have met it. Each run is compared with its *reference*: up to `window` earlier valid
values of its segment (a new fingerprint's values once it has `min_runs` of them, before
that the previous fingerprint's), leaving out the runs of worsenings confirmed earlier.
The reference's level is their 10%-trimmed mean (a median would sit below the mean of a
skewed series, a latency's, and every later run would look a little worse). The scale is
a robust standard deviation of the series before the run, from the differences between
its successive values (the smallest 80% of their squares, rescaled for the trim): a step
or a drift moves one difference or none, a one-run outlier two, so it measures the noise
and not the changes; the values after a run never judge it, so the replay judges each
run as its own night did.
Every threshold below is in that scale, raised for the uncertainty of the estimate as a
Student t quantile is over a normal one (degrees of freedom: 60% of the differences, the
efficiency of the trimmed estimate), so a short series needs a clearer change. Then:

- a run worse than its reference by `suspect` scales (and by the floor) opens a
  *finding*: suspected, its first run the *onset*, its reference fixed from then on; a
  finding whose reference is not a full baseline (`full` values) lasts that one run;
- while the finding is not confirmed, every later run must stay `agree` scales worse,
  else the finding closes (a one-run blip);
- it is *confirmed* on a later run, when its reference holds a full baseline (`full`
  values), when the mean worsening of its runs lies `confirm` standard errors beyond the
  reference, the runs after the onset alone `follow` standard errors beyond it and, when
  `consistent` is set, not better than the onset by more than `consistent` standard
  deviations of a difference: one bad run followed by normal ones is never confirmed,
  however bad it was;
- a confirmed finding closes after two runs in a row back within half its change.

A rule with an `allowance` (the pooled series of a server) replaces the middle two steps
by a tabular CUSUM, the sequential test that reaches a step of a given size soonest for a
given rate of false alarms: from the onset, each run adds its worsening less `allowance`
scales to a sum (at most `limit` a run: one run never carries a confirmation); the
finding closes when the sum falls to zero, and is confirmed when it reaches `limit` scales
on a second run or later that is itself worse than the reference by `agree` scales, its
mean worsening above the floor, the runs after the onset consistent with it as above.
A suspicion that `expire` runs have not confirmed closes, and its runs join the
references of the runs after it: a step of the size the limits are set for confirms in one
to three runs, and a sum held open longer is likelier the reference's own error (a
reference of a config's first runs that happened to be fast keeps every later run a little
worse) than a step; the run after it may open a suspicion against the longer reference.
A sum that a suspicion of noise kept open can meet a real step runs later: on each run
the stretch is split where one step from the reference most likely began, and when the
runs from there are worse than the runs before by `consistent` standard deviations of a
difference, the finding starts there (the runs before join its reference) and is judged
from then on as a finding that opened there: a new suspicion, with the A/B of its own
last good image, never confirmed on its first run. A confirmed finding meets a second
step when a run is worse than each of its runs by `limit` scales: it closes, and the run
opens a finding of its own.
A finding of a rule without a limit (a metric that never confirms alone) has an unbounded
sum, so it also closes as a confirmed finding does, after two runs in a row back within
half its change: else a real step would hold its event open long after it was undone.

A confirmation always needs a second run: a run alone is at most suspected. The second
measurement may come from outside the series: a finding that opens on a run in `known`
(the first bad run of an event an earlier night confirmed, by its next run or by an A/B
of the two images) is confirmed from its onset, so it stays open until the series is back
within half its change and its runs never return to a later reference, however slowly
the CUSUM of the runs alone would have grown.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import statistics
from dataclasses import dataclass, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence

KEEP = 0.8  # share of the squared differences the scale keeps (the smallest)
EFFICIENCY = 0.6  # degrees of freedom per difference
MIN_DF = 3.0
_NORMAL = statistics.NormalDist()


@dataclass(frozen=True, kw_only=True)
class Rule:
    suspect: float
    agree: float
    confirm: float
    follow: float
    consistent: float | None
    min_runs: int
    full: int
    window: int
    allowance: float | None = None  # CUSUM: scales a run's worsening must exceed to add
    limit: float = math.inf  # CUSUM: the sum (scales) that confirms
    expire: int = 0  # CUSUM: a suspicion of this many runs closes unconfirmed (0: never)


@dataclass(frozen=True, kw_only=True)
class Level:
    """A robust reference: trimmed mean, the series' scale and its degrees of freedom, the
    indices of the values."""

    level: float
    scale: float
    runs: tuple[int, ...]
    df: float = math.inf

    @property
    def n(self) -> int:
        return len(self.runs)

    def z(self, k: float) -> float:
        """Threshold `k` (normal standard deviations) raised for this scale's
        uncertainty."""
        return inflate(k, self.df)


@dataclass(frozen=True, kw_only=True)
class Finding:
    """An open worsening of one series at its last valid run."""

    onset: int
    reference: Level
    stretch: tuple[int, ...]  # the valid runs since the onset, the last one included
    worse: tuple[float, ...]  # each one's worsening against the reference (badness units)
    confirmed_at: int | None
    total: float = 0.0  # CUSUM: the sum so far (scales)
    moved: bool = False  # its onset moved to where a later step began (Tracker._onset)

    @property
    def last_good(self) -> int | None:
        return max(self.reference.runs) if self.reference.runs else None

    @property
    def change(self) -> float:
        """The mean worsening over the stretch (badness units)."""
        return statistics.fmean(self.worse)

    @property
    def se(self) -> float:
        """The standard error of `change` (the reference level's own error included)."""
        return self.reference.scale * _error(len(self.worse), self.reference.n)


# The share of the smallest and of the largest values a level leaves out.
TRIM = 0.1
# The variance of a 10%-trimmed mean of n normal values is about 1.06 times that of their
# mean.
LEVEL_VARIANCE = 1.06


def trimmed(values: Sequence[float]) -> float:
    """The mean of `values` without their TRIM smallest and TRIM largest."""
    ordered = sorted(values)
    cut = int(TRIM * len(ordered))
    return statistics.fmean(ordered[cut : len(ordered) - cut])


def _error(k: int, n: int) -> float:
    """Standard error, in scales, of the mean of `k` values less a level of `n`."""
    return math.sqrt(1 / k + LEVEL_VARIANCE / n)


@functools.cache
def _trim_constant(keep: float) -> float:
    """E[Z^2 | |Z| <= q] for a standard normal Z, q its two-sided `keep` quantile."""
    if keep >= 1:
        return 1.0
    q = _NORMAL.inv_cdf((1 + keep) / 2)
    return 1 - 2 * q * _NORMAL.pdf(q) / keep


def spread(values: Sequence[float]) -> tuple[float, float]:
    """The robust standard deviation of `values` from their successive differences, and
    its degrees of freedom ((0, 0) with fewer than three values)."""
    diffs = sorted((b - a) ** 2 for a, b in itertools.pairwise(values))
    if len(diffs) < 2:
        return 0.0, 0.0
    kept = diffs[: max(2, math.ceil(KEEP * len(diffs)))]
    variance = statistics.fmean(kept) / _trim_constant(len(kept) / len(diffs))
    return math.sqrt(variance / 2), EFFICIENCY * len(diffs)


def combine(own: tuple[float, float], prior: tuple[float, float]) -> tuple[float, float]:
    """A series' own (scale, degrees of freedom) pooled with a prior one (the same
    metric's noise over the other servers of the history): variances weighted by their
    degrees of freedom, which add up. A series early in its life is judged with the
    history's noise instead of no judgement at all."""
    (s, df), (s0, df0) = own, prior
    if df0 <= 0:
        return own
    return math.sqrt((df * s * s + df0 * s0 * s0) / (df + df0)), df + df0


def pooled(spreads: Iterable[tuple[float, float]]) -> tuple[float, float]:
    """Several (scale, degrees of freedom) as one: variances weighted by their degrees of
    freedom."""
    found = [(s, df) for s, df in spreads if df > 0]
    total = sum(df for _, df in found)
    if not total:
        return 0.0, 0.0
    return math.sqrt(sum(df * s * s for s, df in found) / total), total


@functools.cache
def inflate(k: float, df: float) -> float:
    """`k` normal standard deviations as the same tail of a Student t with `df` degrees
    of freedom (Cornish-Fisher expansion; inf below MIN_DF)."""
    if df < MIN_DF or math.isinf(k):
        return math.inf
    if math.isinf(df) or k <= 0:
        return k
    z, v = k, df
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def _stretch(df: float) -> float:
    """How much a scale estimated with `df` degrees of freedom is stretched (a 2-sigma
    tail of a Student t over a normal one)."""
    return inflate(2.0, df) / 2.0


def robust(values: Sequence[float], floor: float) -> tuple[float, float, float]:
    """Level (trimmed mean), robust scale (at least `floor`) and its degrees of freedom."""
    scale, df = spread(values)
    return trimmed(values), max(scale, floor), df


def _mean_z(worse: Sequence[float], ref: Level) -> float:
    return statistics.fmean(worse) / (ref.scale * _error(len(worse), ref.n))


def _consistent(rule: Rule, worse: Sequence[float], ref: Level) -> bool:
    """The runs after the onset are not better than the onset by more than `consistent`
    standard deviations of a difference (always, without `consistent`)."""
    if rule.consistent is None or len(worse) < 2:
        return True
    after = worse[1:]
    gap = worse[0] - statistics.fmean(after)
    return gap <= ref.z(rule.consistent) * ref.scale * math.sqrt(1 + 1 / len(after))


def confirms(rule: Rule, worse: Sequence[float], ref: Level, floor: float) -> bool:
    """Whether the worsenings of a stretch (its onset first) confirm it."""
    if len(worse) < 2 or ref.n < rule.full:
        return False
    after = worse[1:]
    if _mean_z(worse, ref) < ref.z(rule.confirm) or _mean_z(after, ref) < ref.z(rule.follow):
        return False
    if statistics.fmean(worse) < floor or statistics.fmean(after) < floor:
        return False
    return _consistent(rule, worse, ref)


class Tracker:
    """Replays one series (badness values, None where a run has no valid value)."""

    def __init__(
        self,
        rule: Rule,
        values: Sequence[float | None],
        *,
        boundary: int = 0,
        floor: Callable[[float], float],
        scale_floor: float,
        scale: tuple[float, float] | None = None,
        known: Collection[int] = (),
        prior: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        self.rule = rule
        self.prior = prior
        self.known = frozenset(known)
        self.values = values
        self.boundary = boundary
        self.floor = floor
        self.excluded: set[int] = set()
        self.valid = [i for i, v in enumerate(values) if v is not None]
        self._position = {i: t for t, i in enumerate(self.valid)}
        self.scale_floor = scale_floor
        self._fixed = scale
        self._scales = self._causal() if scale is None else {}
        self._levels = self._sliding() if boundary == 0 else {}

    def _causal(self) -> dict[int, tuple[float, float]]:
        """The scale and degrees of freedom before each valid run, from the values before
        it only: the replay judges each run as its own night did."""
        vals = [v for v in (self.values[i] for i in self.valid) if v is not None]
        out: dict[int, tuple[float, float]] = {}
        squares: list[float] = []
        for t, j in enumerate(self.valid):
            if len(squares) >= 2:
                kept = squares[: max(2, math.ceil(KEEP * len(squares)))]
                variance = sum(kept) / len(kept) / _trim_constant(len(kept) / len(squares))
                out[j] = (math.sqrt(variance / 2), EFFICIENCY * len(squares))
            else:
                out[j] = (0.0, 0.0)
            if t >= 1:
                bisect.insort(squares, (vals[t] - vals[t - 1]) ** 2)
        return out

    def scale_at(self, j: int) -> tuple[float, float]:
        """(scale, degrees of freedom) that judge run `j`."""
        scale, df = combine(self._fixed if self._fixed is not None else self._scales[j], self.prior)
        return max(scale, self.scale_floor), df

    def _sliding(self) -> dict[int, float]:
        """The level of the last `window` valid values before each valid run the replay
        covers, for the plain case (no fingerprint boundary, nothing excluded)."""
        w = self.rule.window
        vals = [v for v in (self.values[i] for i in self.valid) if v is not None]
        first = bisect.bisect_left(self.valid, len(self.values) - w)
        return {
            self.valid[t]: trimmed(vals[max(0, t - w) : t])
            for t in range(max(self.rule.min_runs, first), len(vals))
        }

    def quiet(self) -> bool:
        """True when no run of the replay is worse than its reference's level by the
        suspicion threshold: nothing can open (only an opening excludes runs)."""
        if self.boundary or not self._levels:
            return False
        start = len(self.values) - self.rule.window
        for j, level in self._levels.items():
            value = self.values[j]
            if j < start or value is None:
                continue
            scale, df = self.scale_at(j)
            if value - level >= inflate(self.rule.suspect, df) * scale:
                return False
        return True

    def _level(self, j: int, level: float, pool: Sequence[int]) -> Level:
        scale, df = self.scale_at(j)
        return Level(level=level, scale=scale, runs=tuple(pool), df=df)

    def reference(self, j: int) -> Level | None:
        """The reference of run `j`: earlier valid values of its segment, at most
        `window`, none from a confirmed worsening."""
        rule, b = self.rule, self.boundary
        if j in self._levels and not self.excluded:
            t = self._position[j]
            return self._level(j, self._levels[j], self.valid[max(0, t - rule.window) : t])
        fresh = [i for i in self.valid if b <= i < j and i not in self.excluded]
        if j >= b and len(fresh) >= rule.min_runs:
            pool = fresh
        else:
            end = min(b, j)
            pool = [i for i in self.valid if i < end and i not in self.excluded]
        pool = pool[-rule.window :]
        if len(pool) < rule.min_runs:
            return None
        found = [v for v in (self.values[i] for i in pool) if v is not None]
        return self._level(j, trimmed(found), pool)

    def run(self) -> Finding | None:
        """The finding open at the series' last valid run, if any (the replay covers the
        last `window` runs)."""
        rule = self.rule
        if self.quiet():
            return None
        open_: Finding | None = None
        start = len(self.values) - rule.window
        for j in self.valid:
            if j < start:
                continue
            value = self.values[j]
            assert value is not None
            if open_ is not None:
                open_ = self._step(open_, j, value)
                if open_ is not None:
                    continue
            ref = self.reference(j)
            if ref is None:
                continue
            worse = value - ref.level
            if worse >= ref.z(rule.suspect) * ref.scale and worse >= self.floor(ref.level):
                open_ = Finding(
                    onset=j,
                    reference=ref,
                    stretch=(j,),
                    worse=(worse,),
                    confirmed_at=j if j in self.known else None,
                    total=self._sum(0.0, worse, ref),
                )
        return open_

    def _sum(self, total: float, worse: float, ref: Level) -> float:
        """The CUSUM after one more run (scales raised for the scale's uncertainty); a run
        adds at most `limit`, so one run, however bad, never carries a confirmation."""
        rule = self.rule
        allowance = rule.allowance or 0.0
        step = min(worse / (ref.scale * _stretch(ref.df)), rule.limit)
        return max(0.0, total + step - allowance)

    def _cusum(self, open_: Finding, j: int, worse: float) -> Finding | None:
        rule, ref = self.rule, open_.reference
        total = self._sum(open_.total, worse, ref)
        if total <= 0:
            return None
        if math.isinf(rule.limit):
            # Never confirmed alone (its sum is unbounded): it recovers as a confirmed
            # finding does, two runs in a row back within half its change.
            back = open_.change / 2
            if worse < back and open_.worse[-1] < back:
                return None
        grown = replace(
            open_, stretch=(*open_.stretch, j), worse=(*open_.worse, worse), total=total
        )
        moved = self._onset(grown)
        if not self._sum_confirms(moved):
            return moved
        return replace(moved, confirmed_at=j)

    def _sum_confirms(self, found: Finding) -> bool:
        """Whether the CUSUM of `found` confirms it at its last run."""
        rule, ref = self.rule, found.reference
        return (
            found.total >= rule.limit
            and ref.n >= rule.full
            and found.worse[-1] >= ref.z(rule.agree) * ref.scale
            and found.change >= self.floor(ref.level)
            and _consistent(rule, found.worse, ref)
        )

    def _onset(self, found: Finding) -> Finding:
        """The finding from where its change began: a sum that a suspicion of noise kept
        open can meet a real step runs later, which would confirm it. The most
        likely start of one step from the reference's level is the split of the stretch
        whose later runs have the largest squared sum per run; the finding moves there when
        those runs are worse than the runs before it by more than `consistent` standard
        deviations of a difference (the runs before join its reference), else it began at
        its onset. A moved finding is confirmed only as one that opened there would be: a
        step's first run alone never is."""
        rule, ref, worse = self.rule, found.reference, found.worse
        if rule.consistent is None:
            return found
        at = max(range(len(worse)), key=lambda i: sum(worse[i:]) ** 2 / (len(worse) - i))
        if at == 0:
            return found
        before, after = worse[:at], worse[at:]
        gap = statistics.fmean(after) - statistics.fmean(before)
        if gap <= ref.z(rule.consistent) * ref.scale * math.sqrt(1 / at + 1 / len(after)):
            return found
        # The runs before the split are good runs before the change: the new onset's own
        # reference holds them, the last of them its last good run.
        onset = found.stretch[at]
        moved = self.reference(onset)
        if moved is None:
            return found
        worse = tuple(
            v - moved.level for v in (self.values[i] for i in found.stretch[at:]) if v is not None
        )
        if worse[0] < moved.z(rule.suspect) * moved.scale or worse[0] < self.floor(moved.level):
            return found  # no suspicion would have opened there
        total = 0.0
        for w in worse:
            total = self._sum(total, w, moved)
        return replace(
            found,
            onset=onset,
            reference=moved,
            stretch=found.stretch[at:],
            worse=worse,
            total=total,
            moved=True,
        )

    def _step(self, open_: Finding, j: int, value: float) -> Finding | None:
        """The finding after run `j` (None: it closed; the run may open another)."""
        rule, ref = self.rule, open_.reference
        if ref.n < rule.full:
            return None  # a suspicion against a short baseline lasts one run
        worse = value - ref.level
        if open_.confirmed_at is None and rule.allowance is not None:
            if rule.expire and len(open_.stretch) >= rule.expire:
                return None  # too long unconfirmed: its runs join the reference
            return self._cusum(open_, j, worse)
        if open_.confirmed_at is None:
            if worse < ref.z(rule.agree) * ref.scale:
                return None  # the next run did not agree: a blip
            grown = replace(open_, stretch=(*open_.stretch, j), worse=(*open_.worse, worse))
            if confirms(rule, grown.worse, ref, self.floor(ref.level)):
                grown = replace(grown, confirmed_at=j)
            return grown
        back = max(ref.z(rule.agree) * ref.scale, open_.change / 2)
        if worse < back and open_.worse[-1] < back:
            self.excluded.update(open_.stretch)
            return None
        if rule.allowance is not None and self._steps_again(open_, worse):
            # A further step on a confirmed change: the change closes, and the run opens
            # one of its own (with its own first bad run) against the level before both.
            self.excluded.update(open_.stretch)
            return None
        return replace(open_, stretch=(*open_.stretch, j), worse=(*open_.worse, worse))

    def _steps_again(self, found: Finding, worse: float) -> bool:
        """Whether a run is worse than every run of a confirmed change by as much as one
        run may add to the sum (`limit` scales): a second step, not the first one's noise
        (a run back and a bad one after it are the first change still)."""
        ref = found.reference
        return worse - max(found.worse) >= ref.z(self.rule.limit) * ref.scale
