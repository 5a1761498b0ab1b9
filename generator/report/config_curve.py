"""The config page's curve of a pair: the latest run beside an earlier one, marked."""

from __future__ import annotations

from generator.report.figures import ChartMark, CurveRun, Figure, curve_figure
from generator.report.markdown import SHORT
from generator.report.site import pct
from generator.results.shown_verdicts import MARKED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from generator.report.timeline import Judged, Series
    from generator.results.shown_verdicts import PointVerdict


def _changes(p: PointVerdict) -> str:
    shown = [m for m in p.metrics if m.verdict in MARKED] or list(p.metrics)
    return ", ".join(f"{SHORT.get(m.metric, m.metric)} {pct(m.change)}".strip() for m in shown)


def curve(
    config: str,
    pair: str,
    series: Sequence[Series],
    newest: str,
    earlier: tuple[str | None, str],
    mine: Judged | None,
    titles: Mapping[str, str],
) -> Figure:
    """The latest run's curve beside `earlier` ((run, what it is): the last good run of
    the config's newest event, else the previous run)."""

    def of(run: str | None, label: str) -> CurveRun | None:
        if run is None:
            return None
        pts = []
        for s in series:
            i = s.index().get(run)
            x, y = (s.values["x"][i], s.values["y"][i]) if i is not None else (None, None)
            if x and y is not None:
                pts.append((float(x), float(y), s.concurrency))
        return CurveRun(label=label, points=pts) if pts else None

    latest = of(newest, f"latest ({titles.get(newest, newest)})")
    before, what = earlier
    drawn = of(before, f"{what} ({titles.get(before or '', before)})")
    marks = []
    verdict = ""
    if mine is not None and latest is not None:
        at = {c: (x, y) for x, y, c in latest.points}
        for p in mine.points:
            if p.config == config and p.pair == pair and p.concurrency in at:
                x, y = at[p.concurrency]
                text = f"{p.verdict} at c={p.concurrency}: {_changes(p)}"
                marks.append(ChartMark(x=x, y=y, verdict=p.verdict, text=text))
        bent = [c for c in mine.curves if c.config == config and c.pair == pair]
        verdict = f" (curve {bent[0].verdict} {pct(bent[0].change)})" if bent else ""
    return curve_figure(
        f"{pair}: throughput per GPU vs interactivity{verdict}",
        latest or CurveRun(label="latest", points=()),
        drawn,
        marks,
    )
