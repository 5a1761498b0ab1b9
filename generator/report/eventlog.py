"""`results events`: what regressed, when, by how much, and what happened to it, in one
query over the history's admitted manifests (docs/results.md, "Events over the history").

Each event once, as the newest run that reported it has it: its config, the metric that
defines it with its change and interval, its points, its first bad and last good run (with
their times), the run that confirmed it, and what happened to it since:

- `marked invalid|fixed|acknowledged by WHO on DATE` (the standing triage mark);
- `cleared by the A/B in RUN`;
- `recovered in RUN`: a later run of its config no longer reported it (a confirmed event);
- `not seen after RUN`: a suspicion that no later run reported;
- `open`: the newest run of its config still reports it.

Its tracking issue comes from the newest `issues.json` that names it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import TypedDict

from generator.catalog.regression import weight
from generator.errors import did_you_mean
from generator.report import confirmations
from generator.report.markdown import from_template
from generator.report.timeline import manifests
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from generator.confirm.triage import Mark
    from generator.results.shown_verdicts import ShownEvent
    from generator.results.store import Store

SCHEMA = "sglang-ci/events/1"
_RUNS = """
SELECT run, strftime(run_time, '%Y-%m-%dT%H:%M:%SZ') AS t FROM runs ORDER BY run_time, run
"""
_CONFIG_RUNS = "SELECT DISTINCT run, config FROM records WHERE kind = 'point'"


class IssueState(TypedDict):
    number: int | None
    url: str | None
    open: bool


class Range(TypedDict):
    """A metric's change and its interval (relative)."""

    change: float
    low: float | None
    high: float | None


class EventStory(TypedDict):
    id: str
    config: str
    state: str | None
    outcome: str
    happened: str
    first_bad_run: str | None
    first_bad_at: str | None
    last_good_run: str | None
    confirmed_in: str | None
    confirmed_by: str | None
    runs: list[str]
    points: list[str]
    changes: dict[str, Range]  # the defining metric first
    differences: dict[str, list[str]]  # what -> [last good, first bad]
    issue: IssueState | None
    triage: dict[str, str | int | None] | None  # triage.Mark.as_dict()


class EventLog(TypedDict):
    """The events over the history (schema sglang-ci/events/1)."""

    schema: str
    events: list[EventStory]


@dataclass(frozen=True, kw_only=True)
class Story:
    """One event over the history."""

    event: ShownEvent
    seen: tuple[str, ...]  # runs that reported it, oldest first
    confirmed_in: str | None
    happened: str
    outcome: str  # open | recovered | cleared | gone | invalid | fixed | acknowledged
    issue: IssueState | None
    mark: Mark | None


def _happened(
    e: ShownEvent, seen: list[str], later: list[str], mark: Mark | None
) -> tuple[str, str]:
    if mark is not None:
        return mark.state, f"marked {mark.text}"
    if e.state == "cleared":
        return "cleared", f"cleared by the A/B in {seen[-1]}"
    if later:
        if e.state == "confirmed":
            return "recovered", f"recovered in {later[0]}"
        return "gone", f"not seen after {seen[-1]}"
    return "open", "open" if e.state == "confirmed" else f"open ({e.state or 'suspected'})"


def stories(
    store: Store, *, since: datetime | None = None, config: str | None = None
) -> list[Story]:
    """Every event the history's manifests report, newest first bad run first."""
    times = {str(r["run"]): str(r["t"]) for r in store.rows(_RUNS)}
    order = {run: i for i, run in enumerate(times)}
    by_config: dict[str, list[str]] = defaultdict(list)
    for row in store.rows(_CONFIG_RUNS):
        by_config[str(row["config"])].append(str(row["run"]))
    if config is not None and config not in by_config:
        msg = f"no config {config!r} in the history{did_you_mean(config, list(by_config))}"
        raise ResultsError(msg)
    found = manifests(store, store.manifests)
    reports: dict[str, list[tuple[str, ShownEvent]]] = defaultdict(list)
    for run in sorted(found.marks, key=lambda r: order.get(r, len(order))):
        for e in found.marks[run].events:
            reports[e.id].append((run, e))
    kept = confirmations.read(
        found.confirmed[r] for r in sorted(found.confirmed, key=lambda r: order.get(r, 0))
    )
    out = []
    for event_id, told in reports.items():
        seen = [run for run, _ in told]
        newest = told[-1][1]
        if config is not None and newest.config != config:
            continue
        first = newest.first_bad_run if newest.first_bad_run in times else seen[0]
        if since is not None and times.get(first, "") < since.strftime("%Y-%m-%dT%H:%M:%SZ"):
            continue
        runs = sorted(by_config.get(newest.config, ()), key=lambda r: order.get(r, 0))
        later = [r for r in runs if order.get(r, 0) > order.get(seen[-1], 0)]
        mark = kept.marks.get(event_id)
        outcome, happened = _happened(newest, seen, later, mark)
        confirmed = next((run for run, e in told if e.state == "confirmed"), None)
        issue = kept.issues.get(event_id)
        out.append(
            Story(
                event=newest,
                seen=tuple(seen),
                confirmed_in=confirmed,
                happened=happened,
                outcome=outcome,
                issue={"number": issue[1].number, "url": issue[1].url, "open": issue[1].open}
                if issue
                else None,
                mark=mark,
            )
        )
    out.sort(key=lambda s: times.get(s.event.first_bad_run or s.seen[0], ""), reverse=True)
    return out


def query(store: Store, *, since: datetime | None = None, config: str | None = None) -> EventLog:
    """The events of `store`'s history as JSON (schema sglang-ci/events/1)."""
    times = {str(r["run"]): str(r["t"]) for r in store.rows(_RUNS)}
    return as_dict(stories(store, since=since, config=config), times)


def as_dict(found: list[Story], times: Mapping[str, str]) -> EventLog:
    return {
        "schema": SCHEMA,
        "events": [
            {
                "id": s.event.id,
                "config": s.event.config,
                "state": s.event.state,
                "outcome": s.outcome,
                "happened": s.happened,
                "first_bad_run": s.event.first_bad_run,
                "first_bad_at": times.get(s.event.first_bad_run or ""),
                "last_good_run": s.event.last_good_run,
                "confirmed_in": s.confirmed_in,
                "confirmed_by": s.event.confirmed_by,
                "runs": list(s.seen),
                "points": list(s.event.points),
                "changes": {
                    m.metric: {"change": m.change, "low": m.low, "high": m.high}
                    for m in sorted(s.event.moves, key=lambda m: weight(m.metric, m.change))
                },
                "differences": {w: [a, b] for w, a, b in s.event.differences},
                "issue": s.issue,
                "triage": s.mark.as_dict() if s.mark else None,
            }
            for s in found
        ],
    }


def _size(changes: Mapping[str, Range]) -> str:
    """The first change (the defining one) with its interval."""
    first = next(iter(changes.items()), None)
    if first is None:
        return "-"
    metric, c = first
    interval = (
        f" [{c['low']:+.1%}, {c['high']:+.1%}]"
        if c["low"] is not None and c["high"] is not None
        else ""
    )
    return f"{metric} {c['change']:+.1%}{interval}"


def _issue(issue: IssueState | None) -> str:
    if issue is None or issue["number"] is None:
        return "-"
    return f"#{issue['number']}" + ("" if issue["open"] else " (closed)")


def markdown(data: EventLog) -> list[str]:
    return from_template("events.md.j2", data=data, size=_size, issue=_issue)
