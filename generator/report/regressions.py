"""The dashboard's regressions page: one section per event (from the verdicts' `events`,
read through verdicts_json; one per config and run where compare wrote none), sorted by
state (confirmed, then suspected) and size (the largest change first), the suspicions
the A/B cleared folded away at the end; each event also has a page of its own
(`event/<id>.html`, what the run summary links), and each pair of last good and first bad
runs its compare page (`compare/<A>--<B>.html`: compare_page.py). Each section is a small
template (`templates/event.html.j2`, event_section.py):

- first bad, last good and latest run, points, metrics, what changed, the runs that
  reported it, its config page;
- its curve before and after: output throughput per GPU against interactivity of the last
  good run, the first bad run and the config's latest run, each point labelled with its
  concurrency, the event's points marked, one small chart per ISL/OSL pair;
- the first-bad diff: image digest, SGLang / ATOM / AITER / ROCm versions and commits,
  catalog commit and runner of the last good and the first bad run, as their records say;
- the A/B on the runner (confirmations.py, ab_section.py): its outcome, repeats, images A
  and B, each step's ratio B / A with its interval, overall and per point, and the
  bisection's first bad image;
- its tracking issue, linked, and the triage mark a person left on it (who, when);
- a link to its last-good-vs-first-bad compare page.

The first EVENTS_SHOWN events get a section; the others a row of a table.
"""

from __future__ import annotations

from generator.catalog.regression import weight
from generator.report.compare_page import compare_page
from generator.report.event_section import section
from generator.report.site import env, link, slug
from generator.report.site import page as write_page

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.report.confirmations import Confirmations
    from generator.report.event_section import EventPageContext
    from generator.results.shown_verdicts import ShownEvent
    from generator.results.store import Store

EVENTS_SHOWN = 60
_LATEST = "SELECT config, arg_max(run, run_time) AS run FROM dash_config_runs GROUP BY config"
_WHEN = "SELECT run, strftime(run_time, '%Y-%m-%dT%H:%M:%SZ') FROM runs"


def _events(store: Store, ctx: EventPageContext) -> list[tuple[ShownEvent, list[str]]]:
    """Each event once, as the newest run that reported it has it, with the runs that
    reported it (newest first)."""
    seen: dict[str, tuple[ShownEvent, list[str]]] = {}
    when = {str(r): (t or "", str(r)) for r, t in store.con.execute(_WHEN).fetchall()}
    order = sorted(ctx.marks, key=lambda r: when.get(r, ("", r)))
    for run in reversed(order):
        for e in ctx.marks[run].events:
            if e.id in seen:
                seen[e.id][1].append(run)
            else:
                seen[e.id] = (e, [run])
    return list(seen.values())


_RANK = {"regression": 0, "suspected": 1}


def _size(event: ShownEvent) -> float:
    first = min(event.moves, key=lambda m: weight(m.metric, m.change), default=None)
    return abs(first.change) if first else 0.0


def page(store: Store, out: Path, ctx: EventPageContext, confirmed: Confirmations) -> int:
    """Write regressions.html, each event's page and each last-good-vs-first-bad compare
    page; the number of events."""
    found = sorted(_events(store, ctx), key=lambda f: (_RANK.get(f[0].verdict, 2), -_size(f[0])))
    latest = {str(c): str(r) for c, r in store.con.execute(_LATEST).fetchall()}
    template = env().get_template("event.html.j2")
    shown = found[:EVENTS_SHOWN]
    body, folded = "", ""
    pairs: set[tuple[str, str]] = set()
    for event, runs in shown:
        here = section(store, ctx, confirmed, event, runs, latest)
        text = template.render(e=here)
        if event.verdict == "cleared":
            folded += text
        else:
            body += text
        own = section(store, ctx, confirmed, event, runs, latest, root="../")
        title = f"{own['verdict']}: {own['display']} ({event.id})"
        write_page(out, f"event/{slug(event.id)}.html", title, template.render(e=own))
        if here["compare"] and event.last_good_run and event.first_bad_run:
            pairs.add((event.last_good_run, event.first_bad_run))
    if folded:
        cleared = sum(e.verdict == "cleared" for e, _ in shown)
        body += (
            f'<details class="cleared"><summary>{cleared} suspicion(s) the A/B cleared'
            f"</summary>{folded}</details>"
        )
    for a, b in sorted(pairs):
        compare_page(store, out, ctx, a, b)
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
