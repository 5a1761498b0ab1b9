"""The config page's trends: each metric per point over runs, as % of its baseline."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from generator.report.figures import ChartMark, Figure, FirstBad, trend_figure
from generator.report.markdown import SHORT
from generator.report.site import pct
from generator.results.shown_verdicts import MARKED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

    from generator.report.timeline import ConfigRuns, Judged, Series

# Per pair, the trends next to the curve: (field, title, unit).
TRENDS = (
    ("y", "output throughput per GPU", "tok/s/GPU"),
    ("ttft", "median TTFT", "ms"),
    ("tpot", "median TPOT", "ms"),
)
# The metric of the verdicts each trend shows.
FIELD_METRIC = {
    "y": "output_throughput_per_gpu",
    "ttft": "median_ttft_ms",
    "tpot": "median_tpot_ms",
    "acceptance_rate": "acceptance_rate",
}


@dataclass(frozen=True, kw_only=True)
class Page:
    """What every chart of one config page shares."""

    history: ConfigRuns
    marks: Mapping[str, Judged]
    titles: Mapping[str, str]
    marked_runs: frozenset[str]
    first_bad: Sequence[FirstBad]
    baseline_end: str | None


def _marks_for(
    config: str,
    pair: str,
    field: str,
    series: Sequence[Series],
    marks: Mapping[str, Judged],
    titles: Mapping[str, str],
    at: Callable[[Series, int], float | None],
    runs: Collection[str],
) -> list[ChartMark]:
    """Marks of the points and curves of (config, pair) on the chart of `field` (drawn at
    `at(series, index)`): a point only where the chart's metric moved, on `runs` only."""
    by_c = {s.concurrency: (s, s.index()) for s in series}
    metric = FIELD_METRIC[field]
    out = []
    for run, j in marks.items():
        if run not in runs:
            continue
        for p in j.points:
            if p.config != config or p.pair != pair or p.concurrency not in by_c:
                continue
            moved = [m for m in p.metrics if m.metric == metric and m.verdict in MARKED]
            s, where = by_c[p.concurrency]
            i = where.get(run)
            y = at(s, i) if i is not None else None
            if not moved or i is None or y is None:
                continue
            shown = f"{SHORT.get(metric, metric)} {pct(moved[0].change)}"
            text = f"{moved[0].verdict} at c={p.concurrency} ({titles.get(run, run)}): {shown}"
            out.append(ChartMark(x=s.t[i], y=y, verdict=moved[0].verdict, text=text))
        if field != "y":
            continue
        for c in j.curves:
            if c.config != config or c.pair != pair:
                continue
            found = [
                (s.t[i], y)
                for s, where in by_c.values()
                if (i := where.get(run)) is not None and (y := at(s, i)) is not None
            ]
            if found:
                top = max(y for _, y in found)
                text = f"curve {c.verdict} ({titles.get(run, run)}): {pct(c.change)}"
                out.append(ChartMark(x=found[0][0], y=top * 1.04, verdict=c.verdict, text=text))
    return out


def _normalized(one: Series, field: str, before: str | None) -> list[float | None]:
    """The values of `field` as % of the point's baseline: its median before `before`
    (a time), else over all its values."""
    values = one.values[field]
    base = [v for t, v in zip(one.t, values, strict=True) if v is not None and (
        before is None or t < before)]  # fmt: skip
    base = base or [v for v in values if v is not None]
    middle = statistics.median(base) if base else None
    if not middle:
        return [None for _ in values]
    return [None if v is None else 100 * float(v) / float(middle) for v in values]


def trends(
    config: str,
    pair: str,
    mine: Sequence[Series],
    ctx: Page,
) -> list[Figure]:
    trends = [*TRENDS]
    if any(one.mtp for one in mine):
        trends.append(("acceptance_rate", "MTP acceptance rate", "acceptance rate"))
    figures = []
    for field, name, unit in trends:
        traces: dict[str, tuple[list[str], list[float]]] = {}
        hover: dict[str, list[str]] = {}
        norm = {one.concurrency: _normalized(one, field, ctx.baseline_end) for one in mine}
        for one in mine:
            kept = [
                (t, n, v)
                for t, n, v in zip(one.t, norm[one.concurrency], one.values[field], strict=True)
                if n is not None and v is not None
            ]
            if kept:
                label = f"c={one.concurrency}"
                traces[label] = ([t for t, _, _ in kept], [n for _, n, _ in kept])
                hover[label] = [f"{n:.1f}% of baseline ({v:,.2f} {unit})" for _, n, v in kept]

        figures.append(
            trend_figure(
                f"{pair}: {name}, % of baseline",
                f"% of baseline ({unit})",
                traces,
                ctx.history.changes,
                _marks_for(
                    config, pair, field, mine, ctx.marks, ctx.titles, _at(norm), ctx.marked_runs
                ),
                quiet=ctx.history.quiet,
                first_bad=ctx.first_bad,
                hover=hover,
                reference=100.0,
            )
        )
    return figures


def _at(norm: Mapping[int, list[float | None]]) -> Callable[[Series, int], float | None]:
    """Where a point of a series sits on a normalized chart."""
    return lambda one, i: norm[one.concurrency][i]
