"""The dashboard's regressions page: one section per event (from the verdicts' `events`,
read through verdicts_json; one per config and run where compare wrote none), sorted by
state (confirmed, then suspected) and size (the largest change first), the suspicions
the A/B cleared folded away at the end; each event also has a page of its own
(`event/<id>.html`, what the run summary links), and each pair of last good and first bad
runs its compare page (`compare/<A>--<B>.html`: rundiff.py). Each section is a small
template (`templates/event.html.j2`):

- first bad, last good and latest run, points, metrics, what changed, the runs that
  reported it, its config page;
- its curve before and after: output throughput per GPU against interactivity of the last
  good run, the first bad run and the config's latest run, each point labelled with its
  concurrency, the event's points marked, one small chart per ISL/OSL pair;
- the first-bad diff: image digest, SGLang / ATOM / AITER / ROCm versions and commits,
  catalog commit and runner of the last good and the first bad run, as their records say;
- the A/B on the runner (confirmations.py): its outcome, repeats, images A and B, each
  step's ratio B / A with its interval, overall and per point, and the bisection's first
  bad image;
- its tracking issue, linked, and the triage mark a person left on it (who, when);
- a link to its last-good-vs-first-bad compare page.

The first EVENTS_SHOWN events get a section; the others a row of a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from generator.catalog.regression import weight
from generator.confirm.outcomes import MISSING, Outcome, judgement_text
from generator.report import rundiff
from generator.report.figures import BAD, EARLIER, LATEST, CurveRun, Mark, curves_figure
from generator.report.oncall import differs_pairs
from generator.report.site import SHORT, env, html, link, slug
from generator.report.site import page as write_page
from generator.results.provenance import short_digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from generator.launch import ab_verdict
    from generator.report.confirmations import Confirmations
    from generator.report.timeline import Judged, RunView
    from generator.results.store import Store
    from generator.results.verdicts_json import Event

EVENTS_SHOWN = 60
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
_LATEST = "SELECT config, arg_max(run, run_time) AS run FROM dash_config_runs GROUP BY config"
_WHEN = "SELECT run, strftime(run_time, '%Y-%m-%dT%H:%M:%SZ') FROM runs"


@dataclass(frozen=True, kw_only=True)
class Context:
    """What the other pages know that this one links to."""

    marks: Mapping[str, Judged]
    views: Mapping[str, RunView]
    titles: Mapping[str, str]
    pages: Mapping[str, str]  # config -> its page
    displays: Mapping[str, str]  # config -> its display name


def _events(store: Store, ctx: Context) -> list[tuple[Event, list[str]]]:
    """Each event once, as the newest run that reported it has it, with the runs that
    reported it (newest first)."""
    seen: dict[str, tuple[Event, list[str]]] = {}
    when = {str(r): (t or "", str(r)) for r, t in store.con.execute(_WHEN).fetchall()}
    order = sorted(ctx.marks, key=lambda r: when.get(r, ("", r)))
    for run in reversed(order):
        for e in ctx.marks[run].events:
            if e.id in seen:
                seen[e.id][1].append(run)
            else:
                seen[e.id] = (e, [run])
    return list(seen.values())


def _diff(rows: Mapping[str, Mapping[str, Any]], good: str | None, bad: str | None) -> list[Any]:
    if good not in rows and bad not in rows:
        return []
    found = rundiff.provenance_rows(rows.get(good or ""), rows.get(bad or ""))
    return [{"what": r["what"], "good": r["a"], "bad": r["b"], "changed": r["changed"]}
            for r in found]  # fmt: skip


def _curves(
    store: Store, event: Event, runs: Sequence[tuple[str | None, str, dict[str, Any]]]
) -> str:
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
            Mark(x=bad[c][0], y=bad[c][1], verdict=event.verdict, text=f"{event.verdict} at c={c}")
            for i, o, c in event.at
            if (i, o) == (isl, osl) and c in bad
        ]
        if any(curve.points for curve, _ in drawn):
            title = f"{isl}x{osl}: throughput per GPU vs interactivity"
            figures.append(curves_figure(title, drawn, marks, height=CHART_HEIGHT))
    return html(figures, f"ev-{slug(event.id)}-", CHART_HEIGHT) if figures else ""


VERSIONS = (
    ("SGLang", "sglang_version"),
    ("ATOM", "atom_version"),
    ("AITER", "aiter_version"),
    ("ROCm", "rocm_version"),
)


def _image(image: Mapping[str, Any], outcome: Outcome) -> str:
    """An image of an A/B: its tag, short digest and the versions its records named."""
    digest = str(image.get("image_digest") or "")
    versions = outcome.versions.get(digest) or {}
    found = [f"{name} {versions[key]}" for name, key in VERSIONS if versions.get(key)]
    tag = image.get("image_tag") or image.get("image_requested") or "-"
    return f"{tag} ({short_digest(digest)})" + (f", {', '.join(found)}" if found else "")


def _interval(j: ab_verdict.Judgement) -> str:
    return "-" if j.low is None or j.high is None else f"[{j.low:.3f}, {j.high:.3f}]"


def ab_result(outcome: Outcome | None, labels: Mapping[str, str]) -> dict[str, Any] | None:
    if outcome is None:
        return None
    steps = [
        {
            "what": "A/B" if s.candidate is None else f"bisection step {s.step}",
            "a": _image(s.a, outcome),
            "b": _image(s.b, outcome),
            "measured": f"{s.turns} of {s.expected} turns measured",
            "verdict": s.verdict,
            # Over the points; each point's own judgement is in its row below.
            "judgements": [judgement_text(j) for j in s.judgements if j.point is None],
            "points": [
                {
                    "point": labels.get(point, point),
                    "metric": SHORT.get(j.metric, j.metric),
                    "ratio": "-" if j.ratio is None else f"{j.ratio:.3f}",
                    "interval": _interval(j),
                    "verdict": j.verdict,
                }
                for point, judged in s.points
                for j in judged
            ],
        }
        for s in outcome.steps
    ]
    first_bad = None
    if outcome.first_bad is not None:
        first_bad = _image(outcome.first_bad, outcome)
    elif outcome.between is not None:
        first_bad = (
            f"after {_image(outcome.between[0], outcome)}, "
            f"at or before {_image(outcome.between[1], outcome)}"
        )
    return {
        "result": outcome.result,
        "missing": outcome.result == MISSING,
        "mode": outcome.mode or "-",
        "repeats": outcome.repeats,
        "steps": steps,
        "first_bad": first_bad,
    }


def _issue(confirmed: Confirmations, event: str, ctx: Context) -> dict[str, Any] | None:
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


def _section(
    store: Store,
    ctx: Context,
    confirmed: Confirmations,
    event: Event,
    runs: list[str],
    latest: Mapping[str, str],
    root: str = "",
) -> dict[str, Any]:
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


_RANK = {"regression": 0, "suspected": 1}


def _size(event: Event) -> float:
    first = min(event.moves, key=lambda m: weight(m.metric, m.change), default=None)
    return abs(first.change) if first else 0.0


def _pairs_page(store: Store, out: Path, ctx: Context, a: str, b: str) -> None:
    """compare/<a>--<b>.html: the two runs side by side, their curves overlaid."""
    data = rundiff.diff(store, a, b, dashboard=True)
    got: dict[tuple[str, int, int], dict[str, list[tuple[float, float, int]]]] = {}
    for run, config, isl, osl, c, x, y in store.con.execute(_PAIR_CURVES, [[a, b]]).fetchall():
        got.setdefault((config, isl, osl), {}).setdefault(run, []).append(
            (float(x), float(y), int(c))
        )
    figures = [
        curves_figure(
            f"{ctx.displays.get(config, config)} {isl}x{osl}: throughput per GPU vs interactivity",
            [
                (CurveRun(label=f"A {ctx.titles.get(a, a)}", points=runs.get(a, [])), EARLIER),
                (CurveRun(label=f"B {ctx.titles.get(b, b)}", points=runs.get(b, [])), BAD),
            ],
            [],
            height=CHART_HEIGHT,
        )
        for (config, isl, osl), runs in sorted(got.items())
    ]
    body = (
        env()
        .get_template("compare.html.j2")
        .render(
            a=a,
            b=b,
            a_link=Markup(link(a, ctx.views, ctx.titles)),
            b_link=Markup(link(b, ctx.views, ctx.titles)),
            configs=[
                {**c, "display": ctx.displays.get(c["config"], c["config"])}
                for c in data["configs"]
            ],
            metrics=rundiff.METRICS,
            points=data["points"],
            chart=Markup(html(figures, "pair-", CHART_HEIGHT) if figures else ""),
        )
    )
    title = f"{ctx.titles.get(a, a)} against {ctx.titles.get(b, b)}"
    write_page(out, rundiff.page_name(a, b), title, body)


_PAIR_CURVES = """
SELECT run, config, isl, osl, concurrency, x, y FROM dash_points
WHERE list_contains(?, run) AND x IS NOT NULL AND x > 0
ORDER BY config, isl, osl, concurrency
"""


def page(store: Store, out: Path, ctx: Context, confirmed: Confirmations) -> int:
    """Write regressions.html, each event's page and each last-good-vs-first-bad compare
    page; the number of events."""
    found = sorted(_events(store, ctx), key=lambda f: (_RANK.get(f[0].verdict, 2), -_size(f[0])))
    latest = {str(c): str(r) for c, r in store.con.execute(_LATEST).fetchall()}
    template = env().get_template("event.html.j2")
    shown = found[:EVENTS_SHOWN]
    body, folded = "", ""
    pairs: set[tuple[str, str]] = set()
    for event, runs in shown:
        section = _section(store, ctx, confirmed, event, runs, latest)
        text = template.render(e=section)
        if event.verdict == "cleared":
            folded += text
        else:
            body += text
        own = _section(store, ctx, confirmed, event, runs, latest, root="../")
        title = f"{own['verdict']}: {own['display']} ({event.id})"
        write_page(out, f"event/{slug(event.id)}.html", title, template.render(e=own))
        if section["compare"] and event.last_good_run and event.first_bad_run:
            pairs.add((event.last_good_run, event.first_bad_run))
    if folded:
        cleared = sum(e.verdict == "cleared" for e, _ in shown)
        body += (
            f'<details class="cleared"><summary>{cleared} suspicion(s) the A/B cleared'
            f"</summary>{folded}</details>"
        )
    for a, b in sorted(pairs):
        _pairs_page(store, out, ctx, a, b)
    older = [
        {
            "id": event.id,
            "verdict": event.verdict,
            "display": ctx.displays.get(event.config, event.config),
            "page": ctx.pages.get(event.config, "index.html"),
            "first_bad": link(event.first_bad_run, ctx.views, ctx.titles),
            "last_good": link(event.last_good_run, ctx.views, ctx.titles),
            "points": event.points,
        }
        for event, _ in found[EVENTS_SHOWN:]
    ]
    if older:
        body += env().get_template("events_older.html.j2").render(events=older)
    write_page(out, "regressions.html", "Regressions", body or "<p>No event.</p>")
    return len(found)
