"""A run's verdicts from the history's data: every server's series replayed (replay.py)
with the noise the whole history measures (noise.py), the findings grouped into events,
and each point's metrics judged (docs/results.md, "The rule").

`judge(series, policy, outcomes)` is a function of its arguments: the servers' series
(the records), and the A/B outcomes of the runs that had one (the A/B documents the
history keeps, judged). Nothing an earlier night wrote is read.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, field, replace

from generator.catalog.regression import METRICS, weight
from generator.results.history import DIFFERENCES, PointKey, ServerSeries
from generator.results.scales import Scale
from generator.results.verdict import (
    IMPROVED,
    INSUFFICIENT,
    NEW,
    OK,
    REGRESSION,
    SUSPECTED,
    worst,
)
from generator.verdicts import model
from generator.verdicts.model import Change, CurveVerdict, Event, MetricVerdict, event_id
from generator.verdicts.noise import Noise, Table, measure, own
from generator.verdicts.replay import BY_AB, CLEARED, CONFIRMED, Finding, Thresholds, replay

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from generator.catalog.regression import Policy

Z95 = 1.959964
THROUGHPUT = "output_throughput_per_gpu"
# A point moved with its server's change when its own worsening over the change's runs is
# at least this share of the server's (the dashboard marks only the points that moved).
AFFECTED = 0.5
# Findings of one server whose onsets are this many runs apart or closer are one event.
ONSET_GAP = 1


@dataclass(frozen=True, kw_only=True)
class ServerJudgement:
    """What the verdicts say of one server's run."""

    series: ServerSeries
    points: dict[PointKey, tuple[MetricVerdict, ...]] = field(default_factory=dict)
    curves: dict[tuple[int, int], CurveVerdict] = field(default_factory=dict)
    events: tuple[Event, ...] = ()


@dataclass(frozen=True, kw_only=True)
class _Found:
    """A finding of one series of a server: its metric, its point (None: the server's
    level), and what it measured."""

    metric: str
    point: PointKey | None
    finding: Finding
    worse: float  # mean worsening over its runs (badness units)
    se: float  # its standard error
    reference: float  # the reference level (badness)


def _points(series: ServerSeries, metric: str) -> list[PointKey]:
    if metric == "acceptance_rate":
        return [p for p in sorted(series.samples) if p in series.acceptance]
    return sorted(series.samples)


def _table(series: ServerSeries, metric: str) -> tuple[list[PointKey], Table]:
    scale = Scale(metric=metric)
    points = _points(series, metric)
    columns = [[scale.badness(v) for v in series.values(p, metric)] for p in points]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else []
    return points, Table(values=rows or [[] for _ in series.runs])


def _metrics(series: ServerSeries) -> list[str]:
    found = {m for samples in series.samples.values() for s in samples if s for m in s.values}
    return [m for m in METRICS if m in found]


def history_noise(all_series: Sequence[ServerSeries], policy: Policy) -> dict[str, Noise]:
    """Each metric's noise over every server's runs before the one judged."""
    tables: dict[str, list[Table]] = defaultdict(list)
    for series in all_series:
        for metric in _metrics(series):
            _, table = _table(series, metric)
            tables[metric].append(Table(values=table.values[: series.current]))
    return {m: measure(ts, policy.noise) for m, ts in tables.items()}


def _ab_of(
    series: ServerSeries, outcomes: Mapping[str, Mapping[str, str]], point: PointKey | None
) -> Callable[[Finding, int], str | None]:
    def ab(f: Finding, now: int) -> str | None:
        night = outcomes.get(series.runs[now].name)
        if not night:
            return None
        return night.get(event_id(series.key, series.runs[f.onset].key, point))

    return ab


def judge_server(
    series: ServerSeries,
    policy: Policy,
    noise: Mapping[str, Noise],
    outcomes: Mapping[str, Mapping[str, str]],
) -> ServerJudgement:
    """The verdicts of the current (last) run of one server."""
    n = series.current
    z = policy.significance
    server_rule = Thresholds(
        suspect=z.suspect, confirm=z.confirm, keep=z.suspect, window=policy.window,
        min_runs=policy.min_runs,
    )  # fmt: skip
    point_rule = Thresholds(
        suspect=z.point, confirm=z.point, keep=z.point, window=policy.window,
        min_runs=policy.min_runs,
    )  # fmt: skip
    found: list[_Found] = []
    per_point: dict[PointKey, list[MetricVerdict]] = defaultdict(list)
    for metric in _metrics(series):
        points, table = _table(series, metric)
        if not points:
            continue
        centers = table.centers(upto=n)
        levels = table.levels(centers)
        size = sum(v is not None for v in table.values[n]) or len(points)
        m_noise = noise.get(metric) or measure([], policy.noise)
        # The server's own noise, weighed with the history's: judged before the run.
        sd = own(levels[:n], m_noise.level(size))
        findings = replay(levels, sd, server_rule, _ab_of(series, outcomes, None))
        typical = statistics.median([c for c in centers if c is not None] or [0.0])
        found += [_measured(metric, None, f, levels, sd, typical) for f in findings]
        residuals = table.residuals(centers, levels)
        point_sd = m_noise.point * math.sqrt(1 + 1 / max(size, 1))
        level_open = [f for f in findings if f.open]
        plain = level_open[-1].reference if level_open else _plain_reference(levels, n, policy)
        for j, p in enumerate(points):
            deviations = [row[j] for row in residuals]
            p_sd = own(deviations[:n], point_sd)
            mine = replay(deviations, p_sd, point_rule, _ab_of(series, outcomes, p))
            found += [
                _measured(metric, p, f, deviations, p_sd, centers[j] or typical) for f in mine
            ]
            if table.values[n][j] is None:
                continue
            # A point is shown against the reference of its own change, else its server's.
            point_open = [f for f in mine if f.open]
            reference = point_open[-1].reference if point_open else plain
            per_point[p].append(_point_metric(series, metric, p, j, table, reference, policy))
    # Open findings, and the ones tonight's A/B cleared (reported once, as cleared).
    shown = [
        f
        for f in found
        if f.finding.open or (f.finding.closed_at == n and f.finding.cleared_by == BY_AB)
    ]
    events = _events(series, shown, n)
    marked = _mark(per_point, events)
    return ServerJudgement(
        series=series, points=marked, curves=_curves(marked, events), events=tuple(events)
    )


def _plain_reference(levels: Sequence[float | None], n: int, policy: Policy) -> tuple[int, ...]:
    return tuple(i for i in range(n) if levels[i] is not None)[-policy.window :]


def _measured(
    metric: str,
    point: PointKey | None,
    f: Finding,
    x: Sequence[float | None],
    sd: float,
    reference: float,
) -> _Found:
    ref = statistics.fmean(x[i] for i in f.reference)  # type: ignore[misc]
    worse = [x[i] - ref for i in f.stretch if x[i] is not None]  # type: ignore[operator]
    mean = statistics.fmean(worse) if worse else 0.0
    se = sd * math.sqrt(1 / max(len(worse), 1) + 1 / max(len(f.reference), 1))
    return _Found(metric=metric, point=point, finding=f, worse=mean, se=se, reference=reference)


def _change(metric: str, worse: float, se: float, reference: float) -> Change:
    scale = Scale(metric=metric)
    a = scale.relative(worse - Z95 * se, reference)
    b = scale.relative(worse + Z95 * se, reference)
    return Change(change=scale.relative(worse, reference), low=min(a, b), high=max(a, b))


def _point_metric(
    series: ServerSeries,
    metric: str,
    point: PointKey,
    j: int,
    table: Table,
    reference: Sequence[int],
    policy: Policy,
) -> MetricVerdict:
    scale = Scale(metric=metric)
    n = series.current
    raw = series.values(point, metric)
    current = raw[n]
    assert current is not None
    mine = [v for v in (table.values[i][j] for i in reference) if v is not None]
    previous = next((v for v in reversed(raw[:n]) if v is not None), None)
    if not mine:
        return MetricVerdict(
            metric=metric, verdict=NEW, current=current, baseline=None, band=None,
            change=None, low=None, high=None, runs=0, previous=previous,
        )  # fmt: skip
    level = statistics.fmean(mine)
    now = table.values[n][j]
    assert now is not None
    # The point's own spread over its reference (the history's at least).
    spread = max(statistics.stdev(mine) if len(mine) > 2 else 0.0, policy.noise)
    change = _change(metric, now - level, spread * math.sqrt(1 + 1 / len(mine)), level)
    verdict = OK
    if len(mine) < policy.min_runs:
        verdict = INSUFFICIENT
    elif -change.change * (1 if scale.higher_is_better else -1) >= policy.change(metric) and (
        (level - now) >= policy.significance.confirm * spread
    ):
        verdict = IMPROVED
    return MetricVerdict(
        metric=metric, verdict=verdict, current=current, baseline=scale.value(level),
        band=None, change=change.change, low=change.low, high=change.high, runs=len(mine),
        previous=previous,
    )  # fmt: skip


def _group(found: Sequence[_Found]) -> list[list[_Found]]:
    """Findings of one server in events: the level's findings of every metric whose onsets
    lie within ONSET_GAP runs of each other, and a point's finding with them when it
    started on the same run; any other point's findings (of every metric, onsets within
    ONSET_GAP) are an event of that point."""
    levels = sorted((f for f in found if f.point is None), key=lambda f: f.finding.onset)
    groups: list[list[_Found]] = []
    for f in levels:
        if groups and f.finding.onset - groups[-1][0].finding.onset <= ONSET_GAP:
            groups[-1].append(f)
        else:
            groups.append([f])
    own: list[list[_Found]] = []  # events of one point
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


def _lead(group: Sequence[_Found]) -> _Found:
    """The finding that defines an event: throughput's when it has one, then the
    earliest, then the largest."""
    return min(
        group,
        key=lambda f: (f.point is not None, f.metric != THROUGHPUT, f.finding.onset, -f.worse),
    )


def _events(series: ServerSeries, found: Sequence[_Found], n: int) -> list[Event]:
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
                measured[f.metric] = _change(f.metric, f.worse, f.se, f.reference)
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


def _state(group: Sequence[_Found], confirmed: Sequence[_Found]) -> str:
    if confirmed:
        return model.CONFIRMED
    if all(f.finding.state == CLEARED for f in group):
        return model.CLEARED
    return model.SUSPECTED


def _moved(series: ServerSeries, lead: _Found) -> list[PointKey]:
    """The points whose own worsening over a level's finding is at least AFFECTED of it."""
    scale = Scale(metric=lead.metric)
    out = []
    for p in _points(series, lead.metric):
        values = [scale.badness(v) for v in series.values(p, lead.metric)]
        ref = [values[i] for i in lead.finding.reference if values[i] is not None]
        now = [values[i] for i in lead.finding.stretch if values[i] is not None]
        if ref and now:
            worse = statistics.fmean(now) - statistics.fmean(ref)  # type: ignore[arg-type]
            if worse >= AFFECTED * lead.worse:
                out.append(p)
    return out


def _mark(
    per_point: Mapping[PointKey, list[MetricVerdict]], events: Sequence[Event]
) -> dict[PointKey, tuple[MetricVerdict, ...]]:
    """Each point's metrics, the ones an event moved at that point, and that are still
    moved on this run (at least AFFECTED of the event's change), marked with its state: a
    run back at its level while the change is still open is not marked."""
    marks: dict[tuple[PointKey, str], str] = {}
    for e in events:
        if e.state == model.CLEARED:
            continue
        word = REGRESSION if e.state == model.CONFIRMED else SUSPECTED
        for p in e.points:
            for m in e.metrics:
                marks[(p, m)] = worst([marks.get((p, m), word), word])
    sizes = {
        (p, m): e.changes[m].change
        for e in events
        for p in e.points
        for m in e.metrics
        if e.state != model.CLEARED
    }

    def moved(p: PointKey, v: MetricVerdict) -> bool:
        size = sizes.get((p, v.metric))
        if not size or v.change is None:
            return False
        return v.change / size >= AFFECTED

    return {
        p: tuple(
            replace(m, verdict=marks[(p, m.metric)])
            if (p, m.metric) in marks and moved(p, m)
            else m
            for m in results
        )
        for p, results in per_point.items()
    }


def _curves(
    points: Mapping[PointKey, Sequence[MetricVerdict]], events: Sequence[Event]
) -> dict[tuple[int, int], CurveVerdict]:
    """Each ISL/OSL pair: what the events that moved its curve (not one point of it) say,
    and its points' mean throughput change."""
    pairs: dict[tuple[int, int], list[MetricVerdict]] = defaultdict(list)
    for p, results in points.items():
        pairs[(p.isl, p.osl)] += [m for m in results if m.metric == THROUGHPUT]
    out = {}
    for pair, found in sorted(pairs.items()):
        changes = [m.change for m in found if m.change is not None]
        # Marked only while its points are (a run back at its level is not).
        still = any(m.verdict in (REGRESSION, SUSPECTED) for m in found)
        states = [
            REGRESSION if e.state == model.CONFIRMED else SUSPECTED
            for e in events
            if pair in e.curves and THROUGHPUT in e.metrics and e.state != model.CLEARED and still
        ]
        # A pair none of whose points has a history is new (or not yet judged).
        first = (
            {m.verdict for m in found}
            if {m.verdict for m in found} <= {NEW, INSUFFICIENT}
            else set()
        )
        out[pair] = CurveVerdict(
            pair=pair,
            verdict=worst(states) if states or not first else worst(list(first)),
            change=statistics.fmean(changes) if changes else None,
        )
    return out


def judge(
    all_series: Sequence[ServerSeries],
    policy: Policy,
    outcomes: Mapping[str, Mapping[str, str]] | None = None,
) -> list[ServerJudgement]:
    """The verdicts of the current run of every server (`outcomes`: the A/B outcomes the
    history keeps, by run name, the judged run's tonight's included)."""
    noise = history_noise(all_series, policy)
    return [judge_server(s, policy, noise, outcomes or {}) for s in all_series]
