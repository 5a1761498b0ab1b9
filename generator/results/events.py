"""Events: one per (server, first bad run), from the findings open at the run being judged
(judge.py), however many points, curves and metrics they touch (docs/results.md,
"Events").

Findings of one server whose onsets lie within one run of each other are one event: a
config-wide step shows in its pooled series, in some points' own series and in its curves
on the same run or the next; and while a config-wide finding is open, another metric's
pooled finding joins its event, and a point's or a curve's once it is confirmed. The event
says the points, curves and metrics it affects, the size of the change per metric with a
95% interval, its last good and first bad run and what differs between them (image
digest, SGLang / ATOM / AITER / ROCm versions, catalog commit, runner, fingerprint). Its
id is a hash of the server and the first bad run's GitHub run id, so a re-run or
re-attempt of the same run, and every later run while it stays open, report the same
event.

An event is `confirmed` once one of its findings is (the next run agreed), `suspected`
before; `new_confirmation` says the run being judged is the one that confirmed it (what
fails a run: an event confirmed on an earlier run and still open is reported again, with
its tracking issue, without failing every run until it recovers).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace

from generator.results.history import DIFFERENCES, PointKey, ServerKey, ServerSeries
from generator.results.judge import CURVE, SERVER, Found, ServerJudgement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

SUSPECTED, CONFIRMED = "suspected", "confirmed"
# Findings whose onsets are this many runs apart or closer are one event.
ONSET_GAP = 1


@dataclass(frozen=True, kw_only=True)
class Change:
    change: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return {"change": self.change, "low": self.low, "high": self.high}


@dataclass(frozen=True, kw_only=True)
class Event:
    id: str
    server: ServerKey
    onset: int
    first_bad_run: str
    last_good_run: str | None
    state: str
    confirmed_at: int | None
    confirmed_in: str | None
    confirmed_by: str | None
    new_confirmation: bool
    current_run: str
    stretch: tuple[str, ...]  # the runs since the first bad one
    cause: str | None
    runs: int
    points: tuple[PointKey, ...]
    curves: tuple[tuple[int, int], ...]
    metrics: tuple[str, ...]
    changes: dict[str, Change]
    differences: dict[str, tuple[str | None, str | None]]
    how: tuple[str, ...]
    found: tuple[Found, ...]


def event_id(server: ServerKey, first_bad_run: str) -> str:
    """The id of the event of `server` whose first bad run is `first_bad_run` (its
    identity: the GitHub run id, the same on the night it is judged as "run" and after it
    is admitted under its own name)."""
    text = json.dumps([server.as_dict(), first_bad_run], sort_keys=True)
    return "ev-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def _clusters(
    found: Sequence[Found], confirmed: Collection[str], names: Sequence[str]
) -> list[list[Found]]:
    """Findings in groups: onsets within ONSET_GAP runs of a group's first, or inside the
    runs of a group's pooled (config-wide) finding: while a server is worse as a whole,
    what else worsens on it is part of the same event. A point's or a curve's finding
    joins a pooled finding it did not start with only once that worsening is confirmed
    (by its own runs, or by an earlier night: its first bad run in `confirmed`): a point
    that steps while its server is merely suspected is a change of its own, with its own
    first bad run."""
    out: list[list[Found]] = []
    for f in sorted(found, key=lambda f: (f.onset, f.metric, f.scope)):
        for group in out:
            wide = any(
                g.scope == SERVER
                and f.onset in g.finding.stretch
                and (
                    f.scope == SERVER
                    or g.finding.confirmed_at is not None
                    or names[group[0].onset] in confirmed
                )
                for g in group
            )
            if wide or f.onset - group[0].onset <= ONSET_GAP:
                group.append(f)
                break
        else:
            out.append([f])
    return out


def _change(found: Sequence[Found], metric: str) -> Change:
    """The change of `metric`: its pooled (server) finding's, else its largest point's."""
    mine = [f for f in found if f.metric == metric]
    best = next((f for f in mine if f.scope == SERVER), None) or max(
        mine, key=lambda f: abs(f.change)
    )
    return Change(change=best.change, low=best.low, high=best.high)


def _differences(
    series: ServerSeries, good: int | None, bad: int
) -> dict[str, tuple[str | None, str | None]]:
    if good is None:
        return {}
    a, b = series.runs[good], series.runs[bad]
    return {w: (a.get(w), b.get(w)) for w in DIFFERENCES if a.get(w) != b.get(w)}


def events(j: ServerJudgement, confirmed: Collection[str] = frozenset()) -> list[Event]:
    """The events open at the current run of `j`'s server; `confirmed`: the first bad runs
    of its events an earlier night confirmed (carry.py)."""
    series = j.series
    n = series.current
    out = []
    for group in _clusters(j.found, confirmed, [r.name for r in series.runs]):
        onset = min(f.onset for f in group)
        goods = [g for g in (f.finding.last_good for f in group) if g is not None and g < onset]
        good = max(goods) if goods else None
        confirmations = [
            f.finding.confirmed_at for f in group if f.finding.confirmed_at is not None
        ]
        at = min(confirmations) if confirmations else None
        points = sorted(
            {f.point for f in group if f.point is not None and f.scope != CURVE}
            | {p for f in group for p in f.points}
        )
        curves = sorted({(f.point.isl, f.point.osl) for f in group if f.scope == CURVE and f.point})
        metrics = tuple(sorted({f.metric for f in group if f.scope != CURVE}))
        boundary = series.boundary
        first = series.runs[onset].name
        out.append(
            Event(
                id=event_id(series.key, series.runs[onset].key),
                server=series.key,
                onset=onset,
                first_bad_run=first,
                last_good_run=series.runs[good].name if good is not None else None,
                state=CONFIRMED if at is not None else SUSPECTED,
                confirmed_at=at,
                confirmed_in=series.runs[at].name if at is not None else None,
                confirmed_by="re-run" if at is not None else None,
                new_confirmation=at == n,
                current_run=series.runs[n].name,
                stretch=tuple(series.runs[i].name for i in range(onset, n + 1)),
                cause="config" if boundary and onset == boundary else None,
                runs=sum(1 for i in range(onset, n + 1) if _measured(series, i)),
                points=tuple(points),
                curves=tuple(curves),
                metrics=metrics,
                changes={m: _change(group, m) for m in metrics},
                differences=_differences(series, good, onset),
                how=tuple(sorted({f.how for f in group})),
                found=tuple(group),
            )
        )
    return out


def merged(found: Sequence[Event]) -> list[Event]:
    """Events that turned out to be the same (the same id once an earlier run's verdicts
    named them) as one: their points, curves, metrics and findings together, the most
    advanced state."""
    out: dict[str, Event] = {}
    for e in found:
        first = out.get(e.id)
        if first is None:
            out[e.id] = e
            continue
        out[e.id] = replace(
            first,
            state=CONFIRMED if CONFIRMED in (first.state, e.state) else first.state,
            new_confirmation=first.new_confirmation or e.new_confirmation,
            points=tuple(sorted(set(first.points) | set(e.points))),
            curves=tuple(sorted(set(first.curves) | set(e.curves))),
            metrics=tuple(sorted(set(first.metrics) | set(e.metrics))),
            changes={**e.changes, **first.changes},
            how=tuple(sorted(set(first.how) | set(e.how))),
            found=first.found + e.found,
            runs=max(first.runs, e.runs),
        )
    return list(out.values())


def _measured(series: ServerSeries, i: int) -> bool:
    return any(s[i] is not None for s in series.samples.values())
