"""A server's findings grouped into events (docs/results.md, "The rule"): the finding
that defines each, its state, the points and curves it moved, what differs between its
last good run and its first bad one."""

from __future__ import annotations

import statistics

from generator.catalog.regression import METRICS, weight
from generator.results.history import DIFFERENCES
from generator.results.scales import Scale
from generator.verdicts import model
from generator.verdicts.badness import AFFECTED, THROUGHPUT, Found, change_of, points_of
from generator.verdicts.model import Change, Event, event_id
from generator.verdicts.replay import BY_AB, CLEARED, CONFIRMED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from generator.results.history import PointKey, ServerSeries

# Findings of one server whose onsets are this many runs apart or closer are one event.
ONSET_GAP = 1


def _group(found: Sequence[Found]) -> list[list[Found]]:
    """Findings of one server in events: the level's findings of every metric whose onsets
    lie within ONSET_GAP runs of each other, and a point's finding with them when it
    started on the same run; any other point's findings (of every metric, onsets within
    ONSET_GAP) are an event of that point."""
    levels = sorted((f for f in found if f.point is None), key=lambda f: f.finding.onset)
    groups: list[list[Found]] = []
    for f in levels:
        if groups and f.finding.onset - groups[-1][0].finding.onset <= ONSET_GAP:
            groups[-1].append(f)
        else:
            groups.append([f])
    own: list[list[Found]] = []  # events of one point
    for f in sorted((f for f in found if f.point is not None), key=lambda f: f.finding.onset):
        near = [
            g
            for g in groups
            if g[0].finding.onset == f.finding.onset and any(x.metric == f.metric for x in g)
        ] or [
            g
            for g in own
            if g[0].point == f.point and abs(g[0].finding.onset - f.finding.onset) <= ONSET_GAP
        ]
        if near:
            near[0].append(f)
        else:
            own.append([f])
    groups += own
    return groups


def _lead(group: Sequence[Found]) -> Found:
    """The finding that defines an event: throughput's when it has one, then the
    earliest, then the largest."""
    return min(
        group,
        key=lambda f: (f.point is not None, f.metric != THROUGHPUT, f.finding.onset, -f.worse),
    )


def events_of(series: ServerSeries, found: Sequence[Found], n: int) -> list[Event]:
    out = []
    for group in _group(found):
        lead = _lead(group)
        onset = lead.finding.onset
        confirmed = [f for f in group if f.finding.state == CONFIRMED]
        at = min(
            (f.finding.confirmed_at for f in confirmed if f.finding.confirmed_at is not None),
            default=None,
        )
        first = series.runs[onset]
        good = max(lead.finding.reference) if lead.finding.reference else None
        last_good = series.runs[good] if good is not None else None
        point = lead.point if all(f.point == lead.point for f in group) else None
        measured: dict[str, Change] = {}
        for f in sorted(group, key=lambda f: (f.point is not None, f.metric)):
            if f.metric not in measured:
                measured[f.metric] = change_of(f.metric, f.worse, f.se, f.reference)
        # The metric that defines the event first.
        changes = dict(sorted(measured.items(), key=lambda i: weight(i[0], i[1].change)))
        points = sorted({f.point for f in group if f.point is not None})
        if point is None:
            points = sorted(set(points) | set(_moved(series, lead)))
        differences = {
            what: (last_good.get(what) if last_good else None, first.get(what))
            for what in DIFFERENCES
            if last_good is not None and last_good.get(what) != first.get(what)
        }
        by = next((f.finding.confirmed_by for f in confirmed if f.finding.confirmed_at == at), None)
        out.append(
            Event(
                id=event_id(series.key, first.key, point),
                server=series.key,
                onset=onset,
                first_bad_run=first.name,
                last_good_run=last_good.name if last_good else None,
                state=_state(group, confirmed),
                confirmed_at=at,
                confirmed_in=series.runs[at].name if at is not None else None,
                confirmed_by=by,
                new_confirmation=at == n,
                cause=None,
                runs=len([i for i in lead.finding.stretch if i <= n]),
                points=tuple(points),
                curves=_pairs(series, points) if point is None else (),
                metrics=tuple(m for m in METRICS if m in changes),
                changes=changes,
                differences=differences,
                how=(BY_AB,) if by == BY_AB else ("runs",),
            )
        )
    return out


def _pairs(series: ServerSeries, moved: Sequence[PointKey]) -> tuple[tuple[int, int], ...]:
    """The ISL/OSL pairs a change of the server's level moved: at least half of each one's
    points (its throughput-latency curve moved, not one point of it)."""
    out = []
    for pair in sorted({(p.isl, p.osl) for p in series.samples}):
        mine = [p for p in series.samples if (p.isl, p.osl) == pair]
        if 2 * sum(p in moved for p in mine) >= len(mine):
            out.append(pair)
    return tuple(out)


def _state(group: Sequence[Found], confirmed: Sequence[Found]) -> str:
    if confirmed:
        return model.CONFIRMED
    if all(f.finding.state == CLEARED for f in group):
        return model.CLEARED
    return model.SUSPECTED


def _moved(series: ServerSeries, lead: Found) -> list[PointKey]:
    """The points whose own worsening over a level's finding is at least AFFECTED of it."""
    scale = Scale(metric=lead.metric)
    out = []
    for p in points_of(series, lead.metric):
        values = [scale.badness(v) for v in series.values(p, lead.metric)]
        ref = [values[i] for i in lead.finding.reference if values[i] is not None]
        now = [values[i] for i in lead.finding.stretch if values[i] is not None]
        if ref and now:
            worse = statistics.fmean(now) - statistics.fmean(ref)  # type: ignore[arg-type]
            if worse >= AFFECTED * lead.worse:
                out.append(p)
    return out
