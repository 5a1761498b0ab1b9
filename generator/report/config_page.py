"""A config's page (`config/<config>.html`): per ISL/OSL pair its curve and its trends."""

from __future__ import annotations

from collections import defaultdict

from markupsafe import Markup

from generator.report.config_curve import curve
from generator.report.config_trends import Page, trends
from generator.report.figures import Figure, FirstBad
from generator.report.oncall import differs
from generator.report.site import html, page, slug
from generator.report.timeline import config_runs, config_series
from generator.results.shown_verdicts import MARKED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from generator.report.timeline import ConfigRuns, Judged, Series
    from generator.results.shown_verdicts import ShownEvent
    from generator.results.store import Store


def _config_events(
    config: str, marks: Mapping[str, Judged], order: Mapping[str, int]
) -> list[ShownEvent]:
    """The config's events as the newest run that reported each has it, oldest first bad
    run first; cleared ones (the A/B found nothing) left out."""
    newest: dict[str, tuple[int, ShownEvent]] = {}
    for run, j in marks.items():
        for e in j.events:
            if e.config == config and order.get(run, -1) >= newest.get(e.id, (-2, e))[0]:
                newest[e.id] = (order.get(run, -1), e)
    found = [e for _, e in newest.values() if e.verdict in MARKED]
    return sorted(found, key=lambda e: order.get(e.first_bad_run or "", -1))


def _first_bad_lines(
    events: Sequence[ShownEvent], times: Mapping[str, str], titles: Mapping[str, str]
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


def config_page(
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
    ctx = Page(
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
        figures.append(curve(config, pair, mine, newest, earlier, marks.get(newest), titles))
        figures += trends(config, pair, mine, ctx)
    rel = f"config/{slug(config)}.html"
    body = f"<p><code>{Markup.escape(config)}</code></p>" + html(figures, "fig")
    page(out, rel, display, body)
    return rel


def _previous(history: ConfigRuns, newest: str) -> str | None:
    names = [r["run"] for r in history.runs]
    at = names.index(newest) if newest in names else len(names)
    return names[at - 1] if at > 0 else None
