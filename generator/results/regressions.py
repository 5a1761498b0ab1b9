"""The dashboard's regressions page: one section per event (from the verdicts' `events`,
read through verdicts_json; one per config and run where compare wrote none), newest
first, each a small template (`templates/event.html.j2`):

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
- its tracking issue, linked.

The newest EVENTS_SHOWN events get a section; older ones a row of a table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from generator.confirm.outcomes import MISSING, Outcome, judgement_text
from generator.launch.provenance import version_commit
from generator.results.figures import BAD, EARLIER, LATEST, CurveRun, Mark, curves_figure
from generator.results.provenance import short_digest
from generator.results.site import SHORT, env, html, link, slug
from generator.results.site import page as write_page

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from generator.launch import ab
    from generator.results.confirmations import Confirmations
    from generator.results.store import Store
    from generator.results.timeline import Judged, RunView
    from generator.results.verdicts_json import Event

EVENTS_SHOWN = 60
CHART_HEIGHT = 320
# The first-bad diff's rows: (label, column of dash_config_runs, how it is shown).
DIFF = (
    ("image digest", "image_digest", "digest"),
    ("SGLang", "sglang_version", ""),
    ("SGLang commit", "sglang_commit", "commit"),
    ("ATOM", "atom_version", ""),
    ("ATOM commit", "atom_version", "version commit"),
    ("AITER", "aiter_version", ""),
    ("AITER commit", "aiter_version", "version commit"),
    ("ROCm", "rocm_version", ""),
    ("catalog commit", "catalog_commit", "commit"),
    ("runner", "runner_name", ""),
)
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


def _shown(field: str, how: str, row: Mapping[str, Any] | None) -> str:
    value = row.get(field) if row else None
    if how == "version commit":
        value = version_commit(value)
    if value is None:
        return "-"
    if how == "digest":
        return short_digest(str(value)) or "-"
    return str(value)[:12] if how == "commit" else str(value)


def _diff(rows: Mapping[str, Mapping[str, Any]], good: str | None, bad: str | None) -> list[Any]:
    if good not in rows and bad not in rows:
        return []
    a, b = rows.get(good or ""), rows.get(bad or "")
    out = []
    for label, field, how in DIFF:
        before, after = _shown(field, how, a), _shown(field, how, b)
        out.append(
            {
                "what": label,
                "good": before,
                "bad": after,
                "changed": a is not None and b is not None and before != after,
            }
        )
    return out


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


def _interval(j: ab.Judgement) -> str:
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
) -> dict[str, Any]:
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
    return {
        "id": event.id,
        "anchor": slug(event.id),
        "verdict": event.verdict,
        "display": ctx.displays.get(event.config, event.config),
        "page": ctx.pages.get(event.config, "index.html"),
        "first_bad": to(bad),
        "last_good": to(good),
        "latest": to(newest),
        "points": event.points,
        "metrics": [SHORT.get(m, m) for m in event.metrics],
        "changes": event.changes,
        "runs": [to(r) for r in runs],
        "issue": _issue(confirmed, event.id, ctx),
        "diff": _diff(rows, good, bad),
        "ab": ab_result(confirmed.outcomes.get(event.id), confirmed.points.get(event.id, {})),
        "chart": Markup(_curves(store, event, curves)),
    }


def page(store: Store, out: Path, ctx: Context, confirmed: Confirmations) -> int:
    """Write regressions.html; the number of events."""
    found = _events(store, ctx)
    latest = {str(c): str(r) for c, r in store.con.execute(_LATEST).fetchall()}
    template = env().get_template("event.html.j2")
    body = "".join(
        template.render(e=_section(store, ctx, confirmed, event, runs, latest))
        for event, runs in found[:EVENTS_SHOWN]
    )
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
