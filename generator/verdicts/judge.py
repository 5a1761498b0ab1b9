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

from generator.verdicts.badness import Found, badness_table, measured, metrics_of
from generator.verdicts.event_grouping import events_of
from generator.verdicts.model import event_id
from generator.verdicts.noise import HistoryNoise, Table, measure, own
from generator.verdicts.point_verdicts import curves_of, mark, point_metric
from generator.verdicts.replay import BY_AB, Finding, Thresholds, replay

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from generator.catalog.regression import Policy
    from generator.results.history import PointKey, ServerSeries
    from generator.results.verdicts_json import MetricDoc
    from generator.verdicts.model import CurveVerdict, Event


@dataclass(frozen=True, kw_only=True)
class ServerJudgement:
    """What the verdicts say of one server's run."""

    series: ServerSeries
    points: dict[PointKey, tuple[MetricDoc, ...]] = field(default_factory=dict)
    curves: dict[tuple[int, int], CurveVerdict] = field(default_factory=dict)
    events: tuple[Event, ...] = ()


def history_noise(all_series: Sequence[ServerSeries], policy: Policy) -> dict[str, HistoryNoise]:
    """Each metric's noise over every server's runs before the one judged."""
    tables: dict[str, list[Table]] = defaultdict(list)
    for series in all_series:
        for metric in metrics_of(series):
            _, table = badness_table(series, metric)
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
    noise: Mapping[str, HistoryNoise],
    outcomes: Mapping[str, Mapping[str, str]],
) -> ServerJudgement:
    """The verdicts of the current (last) run of one server."""
    n = series.current
    z = policy.significance
    server_rule = Thresholds(
        suspect=z.suspect, confirm=z.confirm, keep=z.suspect, window=policy.window,
        min_runs=policy.min_runs,
    )  # fmt: skip
    point_rule = replace(server_rule, suspect=z.point, confirm=z.point, keep=z.point)
    found: list[Found] = []
    per_point: dict[PointKey, list[MetricDoc]] = defaultdict(list)
    for metric in metrics_of(series):
        points, table = badness_table(series, metric)
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
        found += [measured(metric, None, f, levels, sd, typical) for f in findings]
        residuals = table.residuals(centers, levels)
        point_sd = m_noise.point * math.sqrt(1 + 1 / max(size, 1))
        level_open = [f for f in findings if f.open]
        plain = level_open[-1].reference if level_open else _plain_reference(levels, n, policy)
        for j, p in enumerate(points):
            deviations = [row[j] for row in residuals]
            p_sd = own(deviations[:n], point_sd)
            mine = replay(deviations, p_sd, point_rule, _ab_of(series, outcomes, p))
            found += [measured(metric, p, f, deviations, p_sd, centers[j] or typical) for f in mine]
            if table.values[n][j] is None:
                continue
            # A point is shown against the reference of its own change, else its server's.
            point_open = [f for f in mine if f.open]
            reference = point_open[-1].reference if point_open else plain
            per_point[p].append(point_metric(series, metric, p, j, table, reference, policy))
    # Open findings, and the ones tonight's A/B cleared (reported once, as cleared).
    shown = [
        f
        for f in found
        if f.finding.open or (f.finding.closed_at == n and f.finding.cleared_by == BY_AB)
    ]
    events = events_of(series, shown, n)
    marked = mark(per_point, events)
    return ServerJudgement(
        series=series, points=marked, curves=curves_of(marked, events), events=tuple(events)
    )


def _plain_reference(levels: Sequence[float | None], n: int, policy: Policy) -> tuple[int, ...]:
    return tuple(i for i in range(n) if levels[i] is not None)[-policy.window :]


def judge(
    all_series: Sequence[ServerSeries],
    policy: Policy,
    outcomes: Mapping[str, Mapping[str, str]] | None = None,
) -> list[ServerJudgement]:
    """The verdicts of the current run of every server (`outcomes`: the A/B outcomes the
    history keeps, by run name, the judged run's tonight's included)."""
    noise = history_noise(all_series, policy)
    return [judge_server(s, policy, noise, outcomes or {}) for s in all_series]
