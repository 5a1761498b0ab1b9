"""The dashboard index's heatmap, its table of verdicts not `ok` and the issues closed."""

from __future__ import annotations

from collections import defaultdict
from typing import TypedDict

from generator.report.figures import HEAT, Figure, heatmap_figure
from generator.report.markdown import SHORT
from generator.report.site import pct

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence

    from generator.confirm.tracked import Tracked
    from generator.report.confirmations import Confirmations
    from generator.report.timeline import Judged, RunView
    from generator.results.shown_verdicts import MetricVerdict, Verdicts
    from generator.results.store import Store

HEATMAP_RUNS = 30
_MEASURED = """
SELECT DISTINCT run, config, isl, osl FROM dash_points WHERE list_contains(?, run)
"""


class NotOkRow(TypedDict):
    """A row of the index's table of verdicts not `ok`."""

    verdict: str
    config: str
    pair: str
    concurrency: int | str  # "curve" for a curve
    metric: str
    change: str
    note: str


def not_ok_rows(v: Verdicts, displays: Mapping[str, str]) -> Iterator[NotOkRow]:
    """The index's table: each metric of a point that is not ok, then each curve."""
    for p in v.points:
        if p.verdict == "ok":
            continue
        shown: list[MetricVerdict | None] = [m for m in p.metrics if m.verdict != "ok"] or [None]
        for m in shown:
            yield {
                "verdict": m.verdict if m else p.verdict,
                "config": displays.get(p.config, p.config),
                "pair": p.pair,
                "concurrency": p.concurrency,
                "metric": SHORT.get(m.metric, m.metric) if m else "",
                "change": pct(m.change) if m else "",
                "note": p.reason or "",
            }
    for c in v.curves:
        if c.verdict != "ok":
            yield {
                "verdict": c.verdict,
                "config": displays.get(c.config, c.config),
                "pair": c.pair,
                "concurrency": "curve",
                "metric": "tok/s/GPU at fixed interactivity",
                "change": pct(c.change),
                "note": "",
            }


def closed(confirmed: Confirmations, latest: str) -> list[Tracked]:
    """The issues the run `latest` closed (its recoveries)."""
    return [t for run, t in confirmed.issues.values() if run == latest and t.action == "closed"]


def heatmap(
    store: Store,
    views: Sequence[RunView],
    marks: Mapping[str, Judged],
    displays: Mapping[str, str],
) -> Figure:
    """Configs and pairs by the last HEATMAP_RUNS runs: each cell the worst verdict of its
    points in that run (blank: not measured), the first row each run's outcome."""
    shown = list(reversed(views[:HEATMAP_RUNS]))
    names = [v.name for v in shown]
    cells: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for run, config, isl, osl in store.con.execute(_MEASURED, [names]).fetchall():
        cells[(str(config), f"{isl}x{osl}")][str(run)] = "ok"
    for run in names:
        for p in marks[run].points if run in marks else ():
            row = cells.get((p.config, p.pair))
            if row is not None and run in row and HEAT[p.verdict] > HEAT[row[run]]:
                row[run] = p.verdict
    keys = sorted(cells, key=lambda k: (displays.get(k[0], k[0]), k[1]))
    rows = ["run outcome"] + [f"{displays.get(c, c)} {pair}" for c, pair in keys]
    outcome = [v.outcome for v in shown]
    z: list[list[int | None]] = [
        [None if o is None else HEAT["regression" if o == "fail" else "ok"] for o in outcome]
    ]
    text = [[o or "not judged" for o in outcome]]
    for key in keys:
        z.append([HEAT.get(cells[key].get(r, ""), None) for r in names])
        text.append([cells[key].get(r, "not measured") for r in names])
    columns = [v.title for v in shown]
    return heatmap_figure(f"The last {len(shown)} runs", columns, rows, z, text)
