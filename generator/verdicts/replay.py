"""One series judged run by run from its first: the rule (docs/results.md, "The rule").

A series is a server's level on each of its runs (or one point's deviation beyond its
server's level), on the metric's badness scale (higher is worse), with the standard
deviation one run has (noise.py). Each run is compared with a *reference*: the server's
runs before it, at most `window`, without the runs of a change that was found (a
confirmed change, or a suspicion that proved an outlier), so a reference never holds
what it is compared against. The replay goes from the first run to the last, the same
way every night: what it says of a run depends on the runs alone (and the A/B outcomes
the history keeps), never on what an earlier night said.

- **Suspected**: a run worse than its reference by `suspect` standard errors opens a
  finding there (its *onset*).
- **Confirmed**: the stretch from the onset to the run, two runs or more, is worse than the
  reference by `confirm` standard errors, and without its worst run by `keep` (one
  outlier does not carry a stretch); or the night's A/B confirmed it.
- **Cleared**: a suspicion whose latest run is back at (or better than) the reference,
  or whose stretch, two runs or more, is no longer `suspect` standard errors worse, or
  without its worst run not worse at all (an outlier, then normal runs), or that the A/B
  cleared. Its runs stay out of later references.
- **Expired**: a suspicion neither confirmed nor cleared after `2 x min_runs` runs: the
  level it settled at is the reference from then on (its runs join it).
- **Recovered**: a confirmed change whose last two runs are back within the reference's
  noise (less than `suspect` standard errors worse). Its runs stay out of later
  references.
- While a confirmed change stays, once it has `min_runs` runs its level is the
  reference of any further change: a second step on top of the first, `confirm` standard
  errors on one run, is a finding of its own.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SUSPECTED, CONFIRMED, CLEARED, RECOVERED = "suspected", "confirmed", "cleared", "recovered"
BY_RUNS, BY_AB, EXPIRED = "runs", "ab", "expired"


@dataclass(frozen=True, kw_only=True)
class Thresholds:
    suspect: float  # z of one run that opens a finding
    confirm: float  # z of a stretch of two runs or more that confirms it
    keep: float  # z the stretch keeps without its worst run, to confirm
    window: int
    min_runs: int


@dataclass
class Finding:
    """A change found in one series: from `onset`, its runs (`stretch`) and fate."""

    onset: int
    reference: tuple[int, ...]
    stretch: list[int] = field(default_factory=list)
    state: str = SUSPECTED
    confirmed_at: int | None = None
    confirmed_by: str | None = None
    closed_at: int | None = None
    cleared_by: str | None = None

    @property
    def open(self) -> bool:
        return self.state in (SUSPECTED, CONFIRMED)


@dataclass(frozen=True, kw_only=True)
class Level:
    """A reference: its mean and how many runs it holds."""

    mean: float
    runs: tuple[int, ...]


def _z(worse: float, sd: float, n: int, ref: int) -> float:
    return worse / (sd * math.sqrt(1 / n + 1 / ref))


def _reference(
    x: Sequence[float | None], before: int, start: int, excluded: set[int], window: int
) -> Level | None:
    runs = [i for i in range(start, before) if x[i] is not None and i not in excluded][-window:]
    if not runs:
        return None
    return Level(mean=sum(x[i] for i in runs) / len(runs), runs=tuple(runs))  # type: ignore[misc]


def _level(x: Sequence[float | None], runs: Sequence[int]) -> Level:
    return Level(mean=statistics.fmean(x[i] for i in runs), runs=tuple(runs))  # type: ignore[misc]


def worse_by(x: Sequence[float | None], runs: Sequence[int], level: Level) -> list[float]:
    return [x[i] - level.mean for i in runs if x[i] is not None]  # type: ignore[operator]


def stretch_z(values: Sequence[float], sd: float, ref: int) -> tuple[float, float]:
    """The stretch's z, and its z without its worst run (the latter -inf for one run)."""
    z = _z(statistics.fmean(values), sd, len(values), ref)
    if len(values) < 2:
        return z, -math.inf
    rest = sorted(values)[:-1]
    return z, _z(statistics.fmean(rest), sd, len(rest), ref)


def replay(
    x: Sequence[float | None],
    sd: float,
    t: Thresholds,
    ab: Callable[[Finding, int], str | None] = lambda _f, _i: None,
) -> list[Finding]:
    """Every finding of series `x` (badness, a run each; None: no value), open or closed,
    oldest first. `ab(finding, run)`: the A/B's outcome for a finding on that run, if one
    ran (CONFIRMED or CLEARED)."""
    findings: list[Finding] = []
    excluded: set[int] = set()
    for now, value in enumerate(x):
        if value is None:
            continue
        for f in [f for f in findings if f.open]:
            _step(x, sd, t, f, now, excluded, ab)
        inner = next((f for f in reversed(findings) if f.open), None)
        if inner is None:
            level = _reference(x, now, 0, excluded, t.window)
        elif inner.state == CONFIRMED and len(inner.stretch) > t.min_runs:
            # A change that stayed is the level a further change is measured against.
            runs = [i for i in inner.stretch if i != now][-t.window :]
            level = _level(x, runs)
        else:
            continue  # an open suspicion (or a change too new to be a level) decides first
        if level is None or len(level.runs) < t.min_runs:
            continue
        # On top of a change that stayed, only a change as large as a confirmation opens a
        # finding of its own (a smaller one is the same change, still settling).
        needed = t.suspect if inner is None else t.confirm
        if _z(value - level.mean, sd, 1, len(level.runs)) >= needed:
            found = Finding(onset=now, reference=level.runs)
            findings.append(found)
            _step(x, sd, t, found, now, excluded, ab)
    return findings


def _step(
    x: Sequence[float | None],
    sd: float,
    t: Thresholds,
    f: Finding,
    now: int,
    excluded: set[int],
    ab: Callable[[Finding, int], str | None],
) -> None:
    """Run `now` added to open finding `f`, and its fate decided."""
    f.stretch.append(now)
    ref = _level(x, f.reference)
    if f.state == CONFIRMED:
        _judge_recovery(x, sd, t, f, now, excluded)
        return
    outcome = ab(f, now)
    if outcome == CONFIRMED:
        f.state, f.confirmed_at, f.confirmed_by = CONFIRMED, now, BY_AB
        return
    values = worse_by(x, f.stretch, ref)
    z, without_worst = stretch_z(values, sd, len(ref.runs))
    back = values[-1] <= 0  # the latest run at or better than the reference
    if outcome == CLEARED or (len(values) >= 2 and (back or z < t.suspect or without_worst <= 0)):
        f.state, f.closed_at = CLEARED, now
        f.cleared_by = BY_AB if outcome == CLEARED else BY_RUNS
        excluded.update(f.stretch)
        return
    if len(values) >= 2 and z >= t.confirm and without_worst >= t.keep:
        f.state, f.confirmed_at, f.confirmed_by = CONFIRMED, now, BY_RUNS
    elif len(values) >= 2 * t.min_runs:
        # Neither confirmed nor back after this long: a level it settled at, not a change
        # to report; its runs join the reference.
        f.state, f.closed_at, f.cleared_by = CLEARED, now, EXPIRED


def _judge_recovery(
    x: Sequence[float | None], sd: float, t: Thresholds, f: Finding, now: int, excluded: set[int]
) -> None:
    """A confirmed finding whose last two runs are back within its reference's noise (less
    than `suspect` standard errors worse) recovers."""
    ref = _level(x, f.reference)
    last = [i for i in f.stretch if x[i] is not None][-2:]
    if len(last) == 2 and all(
        _z(v, sd, 1, len(ref.runs)) < t.suspect for v in worse_by(x, last, ref)
    ):
        f.state, f.closed_at = RECOVERED, now
        f.stretch = f.stretch[:-2]
        excluded.update(f.stretch)
