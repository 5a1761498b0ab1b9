"""`results report`: a static dashboard built with plotly. plotly's JavaScript is written
once, as `plotly.min.js`, and every page loads it from there (no CDN).

- `index.html`: the latest run (its outcome and link), the configs by display name, the
  latest verdicts that are not `ok` (each metric with its own change), and the runs with
  each image's short digest, SGLang / ATOM / AITER / ROCm versions and catalog commit;
- `config/<config>.html`, titled with the config's display name, per ISL/OSL pair: the
  curve of the latest run beside the last run before the most recent image change, and
  throughput, TTFT and TPOT per point over runs (acceptance for MTP), every point and
  curve a run's verdicts call regression or suspected marked on each chart it is on;
- `regressions.html` (regressions.py): one section per event, linking to the runs that
  reported it, with its curve before and after, the first-bad diff, the A/B on the runner
  and its tracking issue;
- `accuracy.html`: each case's score over runs with its threshold.

Marks come from the verdicts kept in each run's manifest (verdicts_json reads them), and
for the latest run from its manifest, `--verdicts`, or compare run here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import plotly.offline  # type: ignore[import-untyped]
from markupsafe import Markup

from generator.results import confirmations, regressions
from generator.results.figures import (
    CurveRun,
    Figure,
    Mark,
    accuracy_figure,
    curve_figure,
    trend_figure,
)
from generator.results.site import PLOTLY_JS, SHORT, env, html, page, pct, slug
from generator.results.timeline import (
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
from generator.results.verdicts_json import MARKED, read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from pathlib import Path

    from generator.results.store import Store
    from generator.results.verdicts_json import PointVerdict, Verdicts

REPORT = "results report"
RUNS_SHOWN = 60
# Per pair, the trends next to the curve: (field, title, axis, log scale).
TRENDS = (
    ("y", "output throughput per GPU", "tok/s/GPU", False),
    ("ttft", "median TTFT", "ms", True),
    ("tpot", "median TPOT", "ms", True),
)

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
) -> list[Mark]:
    """Marks of the points and curves of (config, pair) on the chart of `field`."""
    by_c = {s.concurrency: (s, s.index()) for s in series}
    out = []
    for run, j in marks.items():
        for p in j.points:
            if p.config != config or p.pair != pair or p.concurrency not in by_c:
                continue
            s, at = by_c[p.concurrency]
            i = at.get(run)
            if i is not None and s.values[field][i] is not None:
                text = f"{p.verdict} at c={p.concurrency} ({titles.get(run, run)}): {_changes(p)}"
                out.append(
                    Mark(x=s.t[i], y=float(s.values[field][i] or 0), verdict=p.verdict, text=text)
                )
        if field != "y":
            continue
        for c in j.curves:
            if c.config != config or c.pair != pair:
                continue
            found = [
                (s.t[i], s.values["y"][i])
                for s, at in by_c.values()
                if (i := at.get(run)) is not None
            ]
            if found:
                top = max(float(y or 0) for _, y in found)
                text = f"curve {c.verdict} ({titles.get(run, run)}): {pct(c.change)}"
                out.append(Mark(x=found[0][0], y=top * 1.04, verdict=c.verdict, text=text))
    return out


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
    newest = next((r for r in reversed(names) if r in current), names[-1] if names else "")
    before = history.before_change or _previous(history, newest)
    figures: list[Figure] = []
    by_pair: dict[str, list[Series]] = defaultdict(list)
    for one in series:
        by_pair[one.pair].append(one)
    for pair, mine in by_pair.items():
        figures.append(
            _curve(config, pair, mine, newest, before, history, marks.get(newest), titles)
        )
        trends = [*TRENDS]
        if any(one.mtp for one in mine):
            trends.append(("acceptance_rate", "MTP acceptance rate", "acceptance rate", False))
        for field, name, axis, log in trends:
            traces: dict[str, tuple[list[str], list[float]]] = {}
            for one in mine:
                kept = [
                    (t, v) for t, v in zip(one.t, one.values[field], strict=True) if v is not None
                ]
                if kept:
                    traces[f"c={one.concurrency}"] = (
                        [t for t, _ in kept],
                        [float(v) for _, v in kept],
                    )
            figures.append(
                trend_figure(
                    f"{pair}: {name}",
                    axis,
                    traces,
                    history.changes,
                    _marks_for(config, pair, field, mine, marks, titles),
                    log=log,
                )
            )
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
    before: str | None,
    history: ConfigRuns,
    mine: Judged | None,
    titles: Mapping[str, str],
) -> Figure:
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
    what = "before the last image change" if history.before_change else "previous run"
    earlier = of(before, f"{what} ({titles.get(before or '', before)})")
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
        earlier,
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
    body = (
        env()
        .get_template("index.html.j2")
        .render(
            latest=latest,
            outcome=v.outcome if v else "not judged",
            reason=v.reason if v else None,
            configs=[(c, d, pages[c]) for c, d in found],
            gates=v.gates if v else (),
            rows=rows,
            runs=list(views.values()),
        )
    )
    page(out, "index.html", "sglang-ci benchmark dashboard", body)
    return len(found) + 3
