"""`results report`: a static dashboard, one page per config, an accuracy page and an
index with the latest verdicts, built with plotly. plotly's JavaScript is written once,
as `plotly.min.js`, and every page loads it from there (no CDN)."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import plotly.io as pio  # type: ignore[import-untyped]
import plotly.offline  # type: ignore[import-untyped]
from jinja2 import Environment, StrictUndefined
from markupsafe import Markup

from generator.results.compare import THROUGHPUT, Comparison, rule
from generator.results.figures import Figure, accuracy_figure, curve_figure, trend_figure
from generator.results.store import Store

PLOTLY_JS = "plotly.min.js"
REPORT = "results report"

_POINTS = """
SELECT role, run, strftime(r.run_time, '%Y-%m-%dT%H:%M:%SZ') AS t, rank, config, display, pair,
  isl, osl, concurrency, curve_key, x_interactivity AS x, output_throughput_per_gpu AS y,
  acceptance_rate, mtp, coalesce(image_digest, image) AS image_id, image
FROM records JOIN runs r USING (role, run)
WHERE kind = 'point' AND valid AND status = 'ok' AND output_throughput_per_gpu IS NOT NULL
ORDER BY config, isl, osl, r.run_time, concurrency
"""
_CASES = """
SELECT case_id, strftime(r.run_time, '%Y-%m-%dT%H:%M:%SZ') AS t, score, threshold
FROM records JOIN runs r USING (role, run)
WHERE kind = 'case' AND score IS NOT NULL
ORDER BY case_id, r.run_time
"""
_RUNS = """
SELECT role, run, strftime(run_time, '%Y-%m-%dT%H:%M:%SZ') AS t, records,
  (SELECT any_value(gh_repository) FROM records x WHERE x.run = runs.run AND x.role = runs.role)
    AS repository,
  (SELECT any_value(gh_run_id) FROM records x WHERE x.run = runs.run AND x.role = runs.role)
    AS run_id
FROM runs ORDER BY run_time DESC LIMIT 60
"""

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<script src="{{ js }}"></script>
<style>
body{font-family:system-ui,sans-serif;margin:1.5rem;max-width:1200px}
table{border-collapse:collapse;font-size:.85rem}td,th{border:1px solid #ccc;padding:2px 6px}
.regression,.missing,.invalid{background:#fdd}.suspected,.trade-off{background:#ffd}
.improved{background:#dfd}.grid{display:grid;grid-template-columns:1fr 1fr;gap:1rem}
</style></head><body>
<p><a href="{{ home }}">Dashboard</a></p>
<h1>{{ title }}</h1>
{{ body }}
</body></html>
"""
_INDEX = """
<p>Latest run: <b>{{ c.current }}</b>
{% if url %}(<a href="{{ url }}">workflow run</a>){% endif %},
compared with {{ c.history_runs }} history run(s):
<b>{{ "FAIL" if c.exit_code else "pass" }}</b>.</p>
<h2>Configs</h2>
<ul>{% for name, page in configs %}
<li><a href="{{ page }}">{{ name }}</a></li>{% endfor %}
</ul>
<p><a href="accuracy.html">Accuracy trends</a></p>
{% if c.gates %}<h2>Failed gates</h2>
<ul>{% for g in c.gates %}<li>{{ g }}</li>{% endfor %}</ul>{% endif %}
<h2>Curves</h2>
<table><tr><th>verdict</th><th>config</th><th>ISLxOSL</th><th>at tok/s/user</th>
<th>change</th></tr>
{% for v in c.curves %}<tr class="{{ v.judgement.verdict }}">
<td>{{ v.judgement.verdict }}</td><td>{{ v.identity.config }}</td>
<td>{{ v.identity.pair }}</td><td>{{ fmt(v.judgement.interactivity) }}</td>
<td>{{ pct(v.judgement.change) }}</td></tr>{% endfor %}
</table>
<h2>Points</h2>
<table><tr><th>verdict</th><th>config</th><th>ISLxOSL</th><th>conc</th>
<th>tok/s/GPU</th><th>change</th><th>TTFT</th><th>TPOT</th><th>note</th></tr>
{% for p in points %}<tr class="{{ p.verdict }}"><td>{{ p.verdict }}</td>
<td>{{ p.identity.config }}</td><td>{{ p.identity.pair }}</td>
<td>{{ p.identity.concurrency }}</td>{% set m = metrics(p) %}
<td>{{ m.t }}</td><td>{{ m.c }}</td><td>{{ m.ttft }}</td><td>{{ m.tpot }}</td>
<td>{{ p.reason or "" }}</td></tr>{% endfor %}
</table>
<h2>Runs</h2>
<table><tr><th>run</th><th>started</th><th>records</th></tr>
{% for r in runs %}<tr>
<td>{% if r.url %}<a href="{{ r.url }}">{{ r.run }}</a>{% else %}{{ r.run }}{% endif %}</td>
<td>{{ r.t }}</td><td>{{ r.records }}</td></tr>{% endfor %}
</table>
"""


def _env() -> Environment:
    return Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "config"


def run_url(repository: str | None, run_id: str | None) -> str | None:
    return (
        f"https://github.com/{repository}/actions/runs/{run_id}" if repository and run_id else None
    )


def _html(figures: list[Figure], prefix: str) -> str:
    """The figures as divs; the page loads plotly.js once."""
    return "\n".join(
        pio.to_html(
            figure,
            include_plotlyjs=False,
            full_html=False,
            validate=False,
            div_id=f"{prefix}{i}",
            default_height="380px",
            config={"displaylogo": False, "responsive": True},
        )
        for i, figure in enumerate(figures)
    )


def _page(out: Path, rel: str, title: str, body: str) -> None:
    depth = rel.count("/")
    up = "../" * depth
    text = (
        _env()
        .from_string(_PAGE)
        .render(title=title, js=up + PLOTLY_JS, home=up + "index.html", body=Markup(body))
    )
    path = out / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _config_pages(store: Store, c: Comparison, out: Path) -> list[tuple[str, str]]:
    by_config: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in store.rows(_POINTS):
        by_config[row["config"]].append(row)
    pages = []
    throughput = rule(c.policy, THROUGHPUT)
    for config, rows in sorted(by_config.items()):
        figures: list[Figure] = []
        pairs: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in rows:
            pairs[row["pair"]].append(row)
        for pair, prs in pairs.items():
            latest = sorted((r["x"], r["y"]) for r in prs if r["role"] == "current" and r["x"])
            hist: dict[int, list[tuple[float, float]]] = defaultdict(list)
            keys = {r["curve_key"] for r in prs if r["role"] == "current"}
            for r in prs:
                if r["role"] == "history" and r["x"] and r["curve_key"] in keys:
                    hist[r["rank"]].append((r["x"], r["y"]))
            past = [sorted(hist[k]) for k in sorted(hist)][: c.policy.runs]
            if latest:
                figures.append(
                    curve_figure(
                        f"{pair}: throughput per GPU vs interactivity",
                        latest,
                        past,
                        throughput,
                        c.policy.runs,
                    )
                )
            figures.append(_trend(f"{pair}: output throughput per GPU", "tok/s/GPU", prs, "y"))
            if any(r["mtp"] for r in prs):
                figures.append(
                    _trend(
                        f"{pair}: MTP acceptance rate", "acceptance rate", prs, "acceptance_rate"
                    )
                )
        rel = f"config/{slug(config)}.html"
        _page(out, rel, config, _html(figures, "fig"))
        pages.append((config, rel))
    return pages


def _trend(title: str, y_title: str, rows: list[dict[str, Any]], field: str) -> Figure:
    series: dict[str, tuple[list[str], list[float]]] = defaultdict(lambda: ([], []))
    changes: list[tuple[str, str]] = []
    last: str | None = None
    for r in rows:
        if r[field] is not None:
            xs, ys = series[f"c={r['concurrency']}"]
            xs.append(r["t"])
            ys.append(r[field])
        if r["image_id"] != last and last is not None and (not changes or changes[-1][0] != r["t"]):
            changes.append((r["t"], str(r["image"])))
        last = r["image_id"]
    ordered = dict(sorted(series.items(), key=lambda kv: int(kv[0][2:])))
    return trend_figure(title, y_title, ordered, changes)


def _accuracy_page(store: Store, out: Path) -> None:
    cases: dict[str, tuple[list[str], list[float], list[float]]] = defaultdict(lambda: ([], [], []))
    for row in store.rows(_CASES):
        t, s, th = cases[row["case_id"]]
        t.append(row["t"])
        s.append(row["score"])
        th.append(row["threshold"])
    figures = [accuracy_figure(case, *values) for case, values in sorted(cases.items())]
    body = _html(figures, "acc") if figures else "<p>No accuracy case in these runs.</p>"
    _page(out, "accuracy.html", "Accuracy trends", body)


def _metric_cells(p: Any) -> dict[str, str]:
    m = {x.metric: x for x in p.metrics}
    t = m.get(THROUGHPUT)

    def verdict(name: str) -> str:
        x = m.get(name)
        return "" if x is None else f"{x.current:,.1f} ({x.verdict})"

    return {
        "t": "" if t is None else f"{t.current:,.1f}",
        "c": "" if t is None or t.change is None else f"{t.change * 100:+.1f}%",
        "ttft": verdict("median_ttft_ms"),
        "tpot": verdict("median_tpot_ms"),
    }


def report(store: Store, comparison: Comparison, out: Path) -> int:
    """Write the site into the new directory `out`; the number of pages."""
    (out / PLOTLY_JS).write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
    configs = _config_pages(store, comparison, out)
    _accuracy_page(store, out)
    runs = [{**r, "url": run_url(r["repository"], r["run_id"])} for r in store.rows(_RUNS)]
    current = next((r for r in runs if r["role"] == "current"), None)
    body = (
        _env()
        .from_string(_INDEX)
        .render(
            c=comparison,
            url=current["url"] if current else None,
            configs=configs,
            points=[p for p in comparison.points if p.verdict != "ok"],
            metrics=_metric_cells,
            runs=runs,
            fmt=lambda v: "" if v is None else f"{v:,.1f}",
            pct=lambda v: "" if v is None else f"{v * 100:+.1f}%",
        )
    )
    _page(out, "index.html", "sglang-ci benchmark dashboard", body)
    return len(configs) + 2
