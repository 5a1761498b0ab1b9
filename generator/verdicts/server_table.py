"""A server's series as the verdicts read it: the metrics it reports, a metric's points,
and a metric's table of badness values (a row per run, a column per point)."""

from __future__ import annotations

from generator.catalog.regression import METRICS
from generator.results.scales import Scale
from generator.verdicts.noise import Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.history import PointKey, ServerSeries


def points_of(series: ServerSeries, metric: str) -> list[PointKey]:
    if metric == "acceptance_rate":
        return [p for p in sorted(series.samples) if p in series.acceptance]
    return sorted(series.samples)


def badness_table(series: ServerSeries, metric: str) -> tuple[list[PointKey], Table]:
    scale = Scale(metric=metric)
    points = points_of(series, metric)
    columns = [[scale.badness(v) for v in series.values(p, metric)] for p in points]
    rows = [list(row) for row in zip(*columns, strict=True)] if columns else []
    return points, Table(values=rows or [[] for _ in series.runs])


def metrics_of(series: ServerSeries) -> list[str]:
    found = {m for samples in series.samples.values() for s in samples if s for m in s.values}
    return [m for m in METRICS if m in found]
