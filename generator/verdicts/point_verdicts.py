"""Each point's metric verdicts against its reference, marked with the state of the events
that moved them, and each ISL/OSL pair's curve verdict."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict

from generator.results.scales import Scale
from generator.results.verdict import IMPROVED, INSUFFICIENT, NEW, OK, REGRESSION, SUSPECTED, worst
from generator.verdicts import model
from generator.verdicts.badness import AFFECTED, THROUGHPUT, change_of
from generator.verdicts.model import CurveVerdict, Event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from generator.catalog.regression import Policy
    from generator.results.history import PointKey, ServerSeries
    from generator.results.verdicts_json import MetricDoc
    from generator.verdicts.noise import Table


def point_metric(
    series: ServerSeries,
    metric: str,
    point: PointKey,
    j: int,
    table: Table,
    reference: Sequence[int],
    policy: Policy,
) -> MetricDoc:
    scale = Scale(metric=metric)
    n = series.current
    raw = series.values(point, metric)
    current = raw[n]
    assert current is not None
    mine = [v for v in (table.values[i][j] for i in reference) if v is not None]
    previous = next((v for v in reversed(raw[:n]) if v is not None), None)
    if not mine:
        return {
            "metric": metric, "verdict": NEW, "current": current, "baseline": None, "band": None,
            "change": None, "low": None, "high": None, "runs": 0, "previous": previous,
            "note": None,
        }  # fmt: skip
    level = statistics.fmean(mine)
    now = table.values[n][j]
    assert now is not None
    # The point's own spread over its reference (the history's at least).
    spread = max(statistics.stdev(mine) if len(mine) > 2 else 0.0, policy.noise)
    change = change_of(metric, now - level, spread * math.sqrt(1 + 1 / len(mine)), level)
    verdict = OK
    if len(mine) < policy.min_runs:
        verdict = INSUFFICIENT
    elif -change.change * (1 if scale.higher_is_better else -1) >= policy.change(metric) and (
        (level - now) >= policy.significance.confirm * spread
    ):
        verdict = IMPROVED
    return {
        "metric": metric, "verdict": verdict, "current": current,
        "baseline": scale.value(level), "band": None, "change": change.change,
        "low": change.low, "high": change.high, "runs": len(mine), "previous": previous,
        "note": None,
    }  # fmt: skip


def mark(
    per_point: Mapping[PointKey, list[MetricDoc]], events: Sequence[Event]
) -> dict[PointKey, tuple[MetricDoc, ...]]:
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

    def moved(p: PointKey, v: MetricDoc) -> bool:
        size = sizes.get((p, v["metric"]))
        if not size or v["change"] is None:
            return False
        return v["change"] / size >= AFFECTED

    return {
        p: tuple(
            {**m, "verdict": marks[(p, m["metric"])]}
            if (p, m["metric"]) in marks and moved(p, m)
            else m
            for m in results
        )
        for p, results in per_point.items()
    }


def curves_of(
    points: Mapping[PointKey, Sequence[MetricDoc]], events: Sequence[Event]
) -> dict[tuple[int, int], CurveVerdict]:
    """Each ISL/OSL pair: what the events that moved its curve (not one point of it) say,
    and its points' mean throughput change."""
    pairs: dict[tuple[int, int], list[MetricDoc]] = defaultdict(list)
    for p, results in points.items():
        pairs[(p.isl, p.osl)] += [m for m in results if m["metric"] == THROUGHPUT]
    out = {}
    for pair, found in sorted(pairs.items()):
        changes = [m["change"] for m in found if m["change"] is not None]
        # Marked only while its points are (a run back at its level is not).
        still = any(m["verdict"] in (REGRESSION, SUSPECTED) for m in found)
        states = [
            REGRESSION if e.state == model.CONFIRMED else SUSPECTED
            for e in events
            if pair in e.curves and THROUGHPUT in e.metrics and e.state != model.CLEARED and still
        ]
        # A pair none of whose points has a history is new (or not yet judged).
        first = (
            {m["verdict"] for m in found}
            if {m["verdict"] for m in found} <= {NEW, INSUFFICIENT}
            else set()
        )
        out[pair] = CurveVerdict(
            pair=pair,
            verdict=worst(states) if states or not first else worst(list(first)),
            change=statistics.fmean(changes) if changes else None,
        )
    return out
