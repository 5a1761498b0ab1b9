"""A server's series in badness units (a metric's table: a row per run, a column per point)
and a finding of one of them measured: its mean worsening, its standard error, and the
change they make, relative, with its 95% interval."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from generator.catalog.regression import METRICS
from generator.results.scales import Scale
from generator.verdicts.model import Change
from generator.verdicts.noise import Table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from generator.results.history import PointKey, ServerSeries
    from generator.verdicts.replay import Finding

Z95 = 1.959964
THROUGHPUT = "output_throughput_per_gpu"
# A point moved with its server's change when its own worsening over the change's runs is
# at least this share of the server's (the dashboard marks only the points that moved).
AFFECTED = 0.5


@dataclass(frozen=True, kw_only=True)
class Found:
    """A finding of one series of a server: its metric, its point (None: the server's
    level), and what it measured."""

    metric: str
    point: PointKey | None
    finding: Finding
    worse: float  # mean worsening over its runs (badness units)
    se: float  # its standard error
    reference: float  # the reference level (badness)


def measured(
    metric: str,
    point: PointKey | None,
    f: Finding,
    x: Sequence[float | None],
    sd: float,
    reference: float,
) -> Found:
    ref = statistics.fmean(x[i] for i in f.reference)  # type: ignore[misc]
    worse = [x[i] - ref for i in f.stretch if x[i] is not None]  # type: ignore[operator]
    mean = statistics.fmean(worse) if worse else 0.0
    se = sd * math.sqrt(1 / max(len(worse), 1) + 1 / max(len(f.reference), 1))
    return Found(metric=metric, point=point, finding=f, worse=mean, se=se, reference=reference)


def change_of(metric: str, worse: float, se: float, reference: float) -> Change:
    scale = Scale(metric=metric)
    a = scale.relative(worse - Z95 * se, reference)
    b = scale.relative(worse + Z95 * se, reference)
    return Change(change=scale.relative(worse, reference), low=min(a, b), high=max(a, b))


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
