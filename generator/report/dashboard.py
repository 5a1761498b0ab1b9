"""`results report`: a static dashboard built with plotly. plotly's JavaScript is written
once, as `plotly.min.js`, and every page loads it from there (no CDN).

- `index.html` (index_page.py): the latest run's outcome after the A/B as its summary's
  headline states it (`red: 1 new regression (...), 1 still open`) and link, a heatmap of
  configs and ISL/OSL pairs by the last HEATMAP_RUNS runs (each cell the worst verdict of
  its points, the first row each run's own outcome), the configs by display name, the
  latest verdicts that are not `ok` (each metric with its own change), and the runs with
  each image's short digest, SGLang / ATOM / AITER / ROCm versions and catalog commit;
- `config/<config>.html` (config_page.py), titled with the config's display name, per
  ISL/OSL pair: the curve of the latest run beside the last good run of the config's
  newest event (else the run before it), and throughput, TTFT and TPOT per point over runs
  (acceptance for MTP), each point as % of its baseline (its median before the first bad
  run of the newest confirmed event, else the newest suspicion), so a step shows at every
  concurrency; each event's first bad run a labelled vertical line with what changed; a
  point marked only on the metric that moved, on its event's first bad run and on the
  latest run;
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

import plotly.offline  # type: ignore[import-untyped]
from markupsafe import Markup

from generator.report import confirmations, oncall, regressions
from generator.report.config_page import config_page
from generator.report.event_section import EventPageContext
from generator.report.figures import accuracy_figure
from generator.report.index_page import closed, heatmap, not_ok_rows
from generator.report.site import PLOTLY_JS, env, html, page
from generator.report.timeline import configs, judged, load_points, manifests, run_views
from generator.results.verdicts_json import VerdictsDoc, read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from generator.results.store import Store

REPORT = "results report"
RUNS_SHOWN = 60
_CASES = """
SELECT case_id, strftime(r.run_time, '%Y-%m-%dT%H:%M:%SZ') AS t, score, threshold
FROM records JOIN runs r USING (role, run)
WHERE kind = 'case' AND score IS NOT NULL
ORDER BY case_id, r.run_time
"""


@dataclass(frozen=True, kw_only=True)
class Latest:
    """The run the index leads with: its name, title, link and verdicts JSON."""

    name: str
    title: str
    url: str | None
    verdicts: VerdictsDoc | None


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
        pages[config] = config_page(store, out, config, display, marks, titles)
    _accuracy_page(store, out)
    displays = dict(found)
    by_time = sorted(marked.confirmed, key=lambda r: views[r].t if r in views else r)
    confirmed = confirmations.read(marked.confirmed[run] for run in by_time)
    for problem in confirmed.problems:
        warn(problem)
    context = EventPageContext(
        marks=marks, views=views, titles=titles, pages=pages, displays=displays
    )
    regressions.page(store, out, context, confirmed)
    v = read(latest.verdicts) if latest.verdicts is not None else None
    rows = list(not_ok_rows(v, displays)) if v else []
    headline = None
    if latest.verdicts is not None:
        run = oncall.OncallContext(run=latest.name, title=latest.title)
        headline, _ = oncall.section(latest.verdicts, run, issues=closed(confirmed, latest.name))
    heat = heatmap(store, list(views.values()), marks, displays)
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
