"""One event's section of the regressions pages (templates/event.html.j2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from markupsafe import Markup

from generator.report import rundiff
from generator.report.ab_section import AbResult, ab_result
from generator.report.figures import BAD, EARLIER, LATEST, ChartMark, CurveRun, Line, curves_figure
from generator.report.markdown import SHORT
from generator.report.oncall import differs_pairs
from generator.report.site import html, link, slug

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from generator.report.confirmations import Confirmations
    from generator.report.timeline import Judged, RunView
    from generator.results.shown_verdicts import ShownEvent
    from generator.results.store import Store

CHART_HEIGHT = 320
_PROVENANCE = """
SELECT run, image, image_digest, sglang_version, sglang_commit, atom_version, aiter_version,
  rocm_version, catalog_commit, runner_name
FROM dash_config_runs WHERE config = ? AND list_contains(?, run)
"""
_CURVES = """
SELECT run, isl, osl, concurrency, x, y FROM dash_points
WHERE config = ? AND list_contains(?, run) AND x IS NOT NULL AND x > 0
ORDER BY run, isl, osl, concurrency
"""


@dataclass(frozen=True, kw_only=True)
class EventPageContext:
    """What the other pages know that this one links to."""

    marks: Mapping[str, Judged]
    views: Mapping[str, RunView]
    titles: Mapping[str, str]
    pages: Mapping[str, str]  # config -> its page
    displays: Mapping[str, str]  # config -> its display name


class DiffRow(TypedDict):
    what: str
    good: str
    bad: str
    changed: bool


class IssueLink(TypedDict):
    text: str
    url: str | None
    state: str
    action: str | None
    run: str  # the run that saw it last, linked


class EventView(TypedDict):
    """One event's section (templates/event.html.j2)."""

    id: str
    anchor: str
    verdict: str
    display: str
    page: str
    own: str
    compare: str | None
    first_bad: str
    last_good: str
    latest: str
    points: tuple[str, ...]
    metrics: list[str]
    changes: list[tuple[str, str]] | tuple[tuple[str, str], ...]
    runs: list[str]
    issue: IssueLink | None
    triage: str | None
    diff: list[DiffRow]
    ab: AbResult | None
    chart: Markup


def _diff(
    rows: Mapping[str, rundiff.Provenance], good: str | None, bad: str | None
) -> list[DiffRow]:
    if good not in rows and bad not in rows:
        return []
    found = rundiff.provenance_rows(rows.get(good or ""), rows.get(bad or ""))
    return [{"what": r["what"], "good": r["a"], "bad": r["b"], "changed": r["changed"]}
            for r in found]  # fmt: skip


def _curves(store: Store, event: ShownEvent, runs: Sequence[tuple[str | None, str, Line]]) -> str:
    """One small chart per ISL/OSL pair of the event: the curve of each run in `runs`
    ((run, label, line style)), the event's points marked on the first bad run's."""
    names = [r for r, _, _ in runs if r]
    got: dict[tuple[str, int, int], list[tuple[float, float, int]]] = {}
    for run, isl, osl, c, x, y in store.con.execute(_CURVES, [event.config, names]).fetchall():
        got.setdefault((run, isl, osl), []).append((float(x), float(y), int(c)))
    pairs = sorted({(isl, osl) for isl, osl, _ in event.at})
    figures = []
    for isl, osl in pairs:
        drawn = [
            (CurveRun(label=label, points=got.get((run, isl, osl), [])), style)
            for run, label, style in runs
            if run
        ]
        bad = {c: (x, y) for x, y, c in got.get((event.first_bad_run or "", isl, osl), [])}
        marks = [
            ChartMark(
                x=bad[c][0], y=bad[c][1], verdict=event.verdict, text=f"{event.verdict} at c={c}"
            )
            for i, o, c in event.at
            if (i, o) == (isl, osl) and c in bad
        ]
        if any(curve.points for curve, _ in drawn):
            title = f"{isl}x{osl}: throughput per GPU vs interactivity"
            figures.append(curves_figure(title, drawn, marks, height=CHART_HEIGHT))
    return html(figures, f"ev-{slug(event.id)}-", CHART_HEIGHT) if figures else ""


def _issue(confirmed: Confirmations, event: str, ctx: EventPageContext) -> IssueLink | None:
    found = confirmed.issues.get(event)
    if found is None:
        return None
    run, t = found
    return {
        "text": f"#{t.number}" if t.number is not None else "issue",
        "url": t.url,
        "state": "open" if t.open else "closed",
        "action": t.action,
        "run": link(run, ctx.views, ctx.titles),
    }


def section(
    store: Store,
    ctx: EventPageContext,
    confirmed: Confirmations,
    event: ShownEvent,
    runs: list[str],
    latest: Mapping[str, str],
    root: str = "",
) -> EventView:
    """The event's section; `root`: the way up from its page to the site's top."""

    def to(run: str | None) -> str:
        return link(run, ctx.views, ctx.titles)

    newest = latest.get(event.config)
    good, bad = event.last_good_run, event.first_bad_run
    rows = {
        r["run"]: r for r in store.rows(_PROVENANCE, [event.config, [x for x in (good, bad) if x]])
    }
    curves = [
        (good, f"last good ({ctx.titles.get(good or '', good)})", EARLIER),
        (bad, f"first bad ({ctx.titles.get(bad or '', bad)})", BAD),
    ]
    if newest not in (good, bad):
        curves.append((newest, f"latest ({ctx.titles.get(newest or '', newest)})", LATEST))
    mark = confirmed.marks.get(event.id)
    return {
        "id": event.id,
        "anchor": slug(event.id),
        "verdict": event.verdict,
        "display": ctx.displays.get(event.config, event.config),
        "page": root + ctx.pages.get(event.config, "index.html"),
        "own": f"{root}event/{slug(event.id)}.html",
        "compare": root + rundiff.page_name(good, bad)
        if good and bad and good in rows and bad in rows
        else None,
        "first_bad": to(bad),
        "last_good": to(good),
        "latest": to(newest),
        "points": event.points,
        "metrics": [SHORT.get(m, m) for m in event.metrics],
        "changes": [
            *((SHORT.get(m.metric, m.metric), m.text) for m in event.moves),
            *differs_pairs({w: (a, b) for w, a, b in event.differences}, str),
        ]
        or event.changes,
        "runs": [to(r) for r in runs],
        "issue": _issue(confirmed, event.id, ctx),
        "triage": mark.text + (f": {mark.note}" if mark.note else "") if mark else None,
        "diff": _diff(rows, good, bad),
        "ab": ab_result(confirmed.outcomes.get(event.id), confirmed.points.get(event.id, {})),
        "chart": Markup(_curves(store, event, curves)),
    }
