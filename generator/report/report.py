"""`results report`: a static dashboard built with plotly. plotly's JavaScript is written
once, as `plotly.min.js`, and every page loads it from there (no CDN).

- `index.html`: the latest run's outcome after the A/B as its summary's headline states
  it (`red: 1 new regression (...), 1 still open`) and link, a heatmap of configs and
  ISL/OSL pairs by the last HEATMAP_RUNS runs (each cell the worst verdict of its points,
  the first row each run's own outcome), the configs by display name, the latest verdicts
  that are not `ok` (each metric with its own change), and the runs with each image's
  short digest, SGLang / ATOM / AITER / ROCm versions and catalog commit;
- `config/<config>.html`, titled with the config's display name, per ISL/OSL pair: the
  curve of the latest run beside the last good run of the config's newest event (else the
  run before it), and throughput, TTFT and TPOT per point over runs (acceptance for MTP),
  each point as % of its baseline (its median before the first bad run of the newest
  confirmed event, else the newest suspicion), so a step shows at every concurrency;
  each event's first bad run a labelled vertical line with what changed; a point marked
  only on the metric that moved, on its event's first bad run and on the latest run;
- `regressions.html` (regressions.py): one section per event, linking to the runs that
  reported it, with its curve before and after, the first-bad diff, the A/B on the runner
  and its tracking issue;
- `accuracy.html`: each case's score over runs with its threshold.

Marks come from the verdicts kept in each run's manifest (verdicts_json reads them), and
for the latest run from its manifest, `--verdicts`, or compare run here.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import plotly.offline  # type: ignore[import-untyped]
from markupsafe import Markup

from generator.report import confirmations, oncall, regressions
from generator.report.figures import (
    HEAT,
    CurveRun,
    Figure,
    FirstBad,
    Mark,
    accuracy_figure,
    curve_figure,
    heatmap_figure,
    trend_figure,
)
from generator.report.oncall import differs
from generator.report.site import PLOTLY_JS, SHORT, env, html, page, pct, slug
from generator.report.timeline import (
    ConfigRuns,
    Judged,
    Series,
    config_runs,
    config_series,
    configs,
    judged,
    load_points,
    manifests,
    run_views,
)
from generator.results.shown_verdicts import MARKED
from generator.results.verdicts_json import read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
    from pathlib import Path

    from generator.confirm.tracked import Tracked
    from generator.report.confirmations import Confirmations
    from generator.report.timeline import RunView
    from generator.results.shown_verdicts import Event, PointVerdict, Verdicts
    from generator.results.store import Store

REPORT = "results report"
RUNS_SHOWN = 60
HEATMAP_RUNS = 30
_MEASURED = """
SELECT DISTINCT run, config, isl, osl FROM dash_points WHERE list_contains(?, run)
"""
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

_CASES = """
SELECT case_id, strftime(r.run_time, '%Y-%m-%dT%H:%M:%SZ') AS t, score, threshold
FROM records JOIN runs r USING (role, run)
WHERE kind = 'case' AND score IS NOT NULL
ORDER BY case_id, r.run_time
"""


def _changes(p: PointVerdict) -> str:
    shown = [m for m in p.metrics if m.verdict in MARKED] or list(p.metrics)
    return ", ".join(f"{SHORT.get(m.metric, m.metric)} {pct(m.change)}" for m in shown)


@dataclass(frozen=True, kw_only=True)
class Latest:
    """The run the index leads with: its name, title, link and verdicts JSON."""

    name: str
    title: str
    url: str | None
    verdicts: Mapping[str, Any] | None


def _marks_for(
    config: str,
    pair: str,
    field: str,
    series: Sequence[Series],
    marks: Mapping[str, Judged],
    titles: Mapping[str, str],
    at: Callable[[Series, int], float | None],
    runs: Collection[str],
) -> list[Mark]:
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
            out.append(Mark(x=s.t[i], y=y, verdict=moved[0].verdict, text=text))
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
                out.append(Mark(x=found[0][0], y=top * 1.04, verdict=c.verdict, text=text))
    return out


def _config_events(
    config: str, marks: Mapping[str, Judged], order: Mapping[str, int]
) -> list[Event]:
    """The config's events as the newest run that reported each has it, oldest first bad
    run first; cleared ones (the A/B found nothing) left out."""
    newest: dict[str, tuple[int, Event]] = {}
    for run, j in marks.items():
        for e in j.events:
            if e.config == config and order.get(run, -1) >= newest.get(e.id, (-2, e))[0]:
                newest[e.id] = (order.get(run, -1), e)
    found = [e for _, e in newest.values() if e.verdict in MARKED]
    return sorted(found, key=lambda e: order.get(e.first_bad_run or "", -1))


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


def _first_bad_lines(
    events: Sequence[Event], times: Mapping[str, str], titles: Mapping[str, str]
) -> list[FirstBad]:
    out = []
    for e in events:
        t = times.get(e.first_bad_run or "")
        if t is None:
            continue
        # plotly's labels take a few tags (<br>): every value escaped, a change a line
        changed = differs({w: (a, b) for w, a, b in e.differences}, str)
        lines = [f"first bad: {titles.get(e.first_bad_run or '', e.first_bad_run)}"]
        lines += changed.split(", ") if changed else []
        label = "<br>".join(str(Markup.escape(line)) for line in lines)
        out.append(FirstBad(t=t, label=label, verdict=e.verdict))
    return out


def _trends(
    config: str,
    pair: str,
    mine: Sequence[Series],
    ctx: _Page,
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


@dataclass(frozen=True, kw_only=True)
class _Page:
    """What every chart of one config page shares."""

    history: ConfigRuns
    marks: Mapping[str, Judged]
    titles: Mapping[str, str]
    marked_runs: frozenset[str]
    first_bad: Sequence[FirstBad]
    baseline_end: str | None


def _config_page(
    store: Store,
    out: Path,
    config: str,
    display: str,
    marks: Mapping[str, Judged],
    titles: Mapping[str, str],
) -> str:
    series = config_series(store, config)
    history = config_runs(store, config)
    current = {
        r for s in series for r, role in zip(s.runs, s.roles, strict=True) if role == "current"
    }
    names = [r["run"] for r in history.runs]
    order = {name: i for i, name in enumerate(names)}
    times = {r["run"]: r["t"] for r in history.runs}
    newest = next((r for r in reversed(names) if r in current), names[-1] if names else "")
    events = _config_events(config, marks, order)
    # The baseline ends, and the curve's earlier run is, at the newest confirmed event
    # (else the newest suspicion): a suspicion on top of a confirmed step reads against
    # the level before the step.
    confirmed = [e for e in events if e.verdict == "regression"]
    last = (confirmed or events)[-1] if events else None
    before = last.last_good_run if last and last.last_good_run in order else None
    ctx = _Page(
        history=history,
        marks=marks,
        titles=titles,
        marked_runs=frozenset({newest, *(e.first_bad_run or "" for e in events)}),
        first_bad=_first_bad_lines(events, times, titles),
        baseline_end=times.get(last.first_bad_run or "") if last else None,
    )
    figures: list[Figure] = []
    by_pair: dict[str, list[Series]] = defaultdict(list)
    for one in series:
        by_pair[one.pair].append(one)
    for pair, mine in by_pair.items():
        earlier = (before, "last good") if before else (_previous(history, newest), "previous run")
        figures.append(_curve(config, pair, mine, newest, earlier, marks.get(newest), titles))
        figures += _trends(config, pair, mine, ctx)
    rel = f"config/{slug(config)}.html"
    body = f"<p><code>{Markup.escape(config)}</code></p>" + html(figures, "fig")
    page(out, rel, display, body)
    return rel


def _previous(history: ConfigRuns, newest: str) -> str | None:
    names = [r["run"] for r in history.runs]
    at = names.index(newest) if newest in names else len(names)
    return names[at - 1] if at > 0 else None


def _curve(
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
                marks.append(Mark(x=x, y=y, verdict=p.verdict, text=text))
        bent = [c for c in mine.curves if c.config == config and c.pair == pair]
        verdict = f" (curve {bent[0].verdict} {pct(bent[0].change)})" if bent else ""
    return curve_figure(
        f"{pair}: throughput per GPU vs interactivity{verdict}",
        latest or CurveRun(label="latest", points=()),
        drawn,
        marks,
    )


def _accuracy_page(store: Store, out: Path) -> None:
    cases: dict[str, tuple[list[str], list[float], list[float]]] = defaultdict(lambda: ([], [], []))
    for row in store.rows(_CASES):
        t, s, th = cases[row["case_id"]]
        t.append(row["t"])
        s.append(row["score"])
        th.append(row["threshold"])
    figures = [accuracy_figure(case, *values) for case, values in sorted(cases.items())]
    body = html(figures, "acc") if figures else "<p>No accuracy case in these runs.</p>"
    page(out, "accuracy.html", "Accuracy trends", body)


def _not_ok_rows(v: Verdicts, displays: Mapping[str, str]) -> Iterator[dict[str, Any]]:
    """The index's table: each metric of a point that is not ok, then each curve."""
    for p in v.points:
        if p.verdict == "ok":
            continue
        shown: list[Any] = [m for m in p.metrics if m.verdict != "ok"] or [None]
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


def _closed(confirmed: Confirmations, latest: Latest) -> list[Tracked]:
    """The issues the latest run closed (its recoveries)."""
    return [
        t for run, t in confirmed.issues.values() if run == latest.name and t.action == "closed"
    ]


def _heatmap(
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


def report(
    store: Store, latest: Latest, out: Path, warn: Callable[[str], None] = lambda _: None
) -> int:
    """Write the site into the new directory `out`; the number of pages. What cannot be
    shown (an A/B whose matrix entry is not one) goes to `warn`."""
    (out / PLOTLY_JS).write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
    marked = manifests(store, store.manifests)
    info, marks = marked.info, marked.marks
    if latest.verdicts is not None:
        marks[latest.name] = judged(latest.name, latest.verdicts)
    load_points(store)
    views = {v.name: v for v in run_views(store, info, marks, RUNS_SHOWN)}
    titles = {**{v.name: v.title for v in views.values()}, latest.name: latest.title}
    pages: dict[str, str] = {}
    found = configs(store)
    for config, display in found:
        pages[config] = _config_page(store, out, config, display, marks, titles)
    _accuracy_page(store, out)
    displays = dict(found)
    by_time = sorted(marked.confirmed, key=lambda r: views[r].t if r in views else r)
    confirmed = confirmations.read(marked.confirmed[run] for run in by_time)
    for problem in confirmed.problems:
        warn(problem)
    context = regressions.Context(
        marks=marks, views=views, titles=titles, pages=pages, displays=displays
    )
    regressions.page(store, out, context, confirmed)
    v = read(latest.verdicts) if latest.verdicts is not None else None
    rows = list(_not_ok_rows(v, displays)) if v else []
    headline = None
    if latest.verdicts is not None:
        run = oncall.Context(run=latest.name, title=latest.title)
        headline, _ = oncall.section(latest.verdicts, run, issues=_closed(confirmed, latest))
    heat = _heatmap(store, list(views.values()), marks, displays)
    body = (
        env()
        .get_template("index.html.j2")
        .render(
            latest=latest,
            headline=headline,
            heatmap=Markup(html([heat], "heat-", heat["layout"]["height"], columns=1)),
            outcome=v.outcome if v else "not judged",
            reason=v.reason if v else None,
            configs=[(c, d, pages[c]) for c, d in found],
            gates=v.gates if v else (),
            rows=rows,
            runs=list(views.values()),
        )
    )
    page(out, "index.html", "sglang-ci benchmark dashboard", body)
    return sum(1 for _ in out.rglob("*.html"))
