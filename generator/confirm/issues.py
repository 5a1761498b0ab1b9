"""One tracking issue per confirmed event, kept with the GitHub CLI (docs/confirmation.md).

- An event confirmed this run (by the next run or by an A/B) without an issue: one is
  opened, labelled with the catalog's label.
- An event still open with an open issue: one comment with this run and the size of the
  change (never twice for one run: a re-attempt finds its own comment).
- An issue whose event was closed: reopened with that comment.
- An open issue whose event is no longer reported although its server was measured this
  run, or is reported but this run judged every one of its points `ok` in its metric:
  closed with a comment (recovered). A server not measured this run (another cron
  group) leaves its issue alone.

- A confirmed event without an issue, on a server whose earlier issue for the same
  metric was closed on recovery: that issue is reopened for it (the step came back).

An issue is found again by the event id in a marker line of its body (or of a comment of
the bot's that reopened it for a later event), among the issues with the label (open and
closed), so re-runs and re-attempts never open a second one. Only the bot's own issues and
comments count: an issue is the bot's when gh names the bot as its author (`--bot`, by
default `app/github-actions`, the workflow token's identity), a comment when GitHub says
the caller wrote it (`viewerDidAuthor`). A marker anywhere else, a marker that does not
parse or has no id, is skipped with a warning; an issue the bot did not open is never
commented on, reopened or closed (tracking_issue.py, issue_gh.py).
`plan` decides and writes, `issue_gh.apply` calls gh; tested against the stand-in gh
(tests/standin/bin/gh).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator.confirm.events import CONFIRMED, by_weight, defining_metric
from generator.confirm.outcome import judgement_text, short
from generator.confirm.tracking_issue import marker, run_marker
from generator.core.logtext import md_code as code
from generator.core.logtext import md_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from generator.confirm.events import CompareEvents, ConfirmEvent
    from generator.confirm.outcome import Outcome
    from generator.confirm.tracking_issue import Issue, IssueRun


# A link target from the run's own facts: https, nothing that ends the destination.
_LINK = re.compile(r"https://[^\s()<>`\\]+")


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1%}"


def size(event: ConfirmEvent) -> str:
    """The change of each metric with its interval: `output_throughput_per_gpu -8.1%
    [-9.0%, -7.2%]`."""
    parts = [
        f"{m} {_percent(c.change)} [{_percent(c.low)}, {_percent(c.high)}]"
        for m, c in by_weight(event.changes)
    ]
    return "; ".join(parts) or "size not reported"


def link(run: IssueRun) -> str:
    if run.url and _LINK.fullmatch(run.url):
        return f"[{md_text(run.name)}]({run.url})"
    return code(run.name)


def title(event: ConfirmEvent) -> str:
    first = next(iter(by_weight(event.changes)), None)
    change = f" {_percent(first[1].change)} {first[0]}" if first else ""
    return f"Performance regression: {event.server.config}{change} since {event.first_bad_run}"


def body(event: ConfirmEvent, outcome: Outcome | None, run: IssueRun) -> str:
    s = event.server
    lines = [
        f"**{md_text(s.config)}** regressed: {md_text(size(event))}.",
        "",
        (
            f"- first bad run: {code(event.first_bad_run)}; "
            f"last good run: {code(event.last_good_run)}"
        ),
        (
            f"- confirmed by: {md_text(event.confirmed_by or 'the A/B on the runner')}"
            f" (run {link(run)})"
        ),
        (
            f"- server: fingerprint {code(s.fingerprint)}, runner {code(s.runner_label)}, "
            f"image family {code(s.image_family)}"
        ),
        "- points: " + ", ".join(md_text(p.label) for p in event.points),
        "",
        "What differs between the last good and the first bad run:",
        "",
        "| | last good | first bad |",
        "|---|---|---|",
        *(
            f"| {md_text(k, table=True)} | {code(a, table=True)} | {code(b, table=True)} |"
            for k, (a, b) in sorted(event.differences.items())
        ),
        "",
    ]
    if outcome is not None and outcome.steps:
        lines += [f"A/B on the runner ({outcome.repeats} repeats, {outcome.mode}):", ""]
        for step in outcome.steps:
            lines.append(
                f"- A {short(step.a)} against B {short(step.b)}: "
                + "; ".join(judgement_text(j) for j in step.judgements)
            )
        if outcome.first_bad is not None:
            lines.append(f"- first bad image: {short(outcome.first_bad)}")
        lines.append("")
    lines += [
        (
            "This issue is kept by sglang-ci: commented on while the event stays open, closed "
            "when it recovers."
        ),
        "",
        marker(event),
        run_marker(run),
    ]
    return "\n".join(lines) + "\n"


def tonight(event: ConfirmEvent, verdicts: CompareEvents) -> str:
    """This run's numbers at the event's points: the metric that defines it, each point's
    value and change against its baseline."""
    metric = defining_metric(event)
    if metric is None:
        return ""
    found = verdicts.tonight(event, metric)
    if not found:
        return ""
    shown = ", ".join(
        f"{md_text(p.label)}"
        + (f" {value:,.1f}" if value is not None else "")
        + f" ({change:+.1%})"
        for p, value, change in found
    )
    return f"This run's {md_text(metric)}: {shown}."


@dataclass(frozen=True, kw_only=True)
class Action:
    kind: str  # create | comment | reopen | close
    event: str
    number: int | None
    title: str | None = None  # create only
    body: str


def _returning(event: ConfirmEvent, issues: Sequence[Issue]) -> Issue | None:
    """The bot's closed issue of the same server and metric: the step came back."""
    metric = defining_metric(event)
    back = [
        i for i in issues if not i.open and i.server == event.server.key() and i.metric == metric
    ]
    return max(back, key=lambda i: i.number) if back else None


def plan(
    verdicts: CompareEvents,
    outcomes: Mapping[str, Outcome],
    issues: Sequence[Issue],
    run: IssueRun,
    settled: frozenset[str] = frozenset(),
) -> list[Action]:
    """What to do with the tracking issues after this run (pure: no gh). `settled`: events
    a person marked invalid or fixed (triage.py): their issue is left as that person left
    it (never commented on or reopened for them)."""
    by_event = {e: i for i in issues for e in i.tracks()}
    open_events = {e.id for e in verdicts.events}
    actions: list[Action] = []
    for event in verdicts.events:
        if event.state != CONFIRMED or event.id in settled:
            continue
        issue = by_event.get(event.id)
        numbers = tonight(event, verdicts)
        if issue is None:
            back = _returning(event, issues)
            if back is None:
                actions.append(
                    Action(
                        kind="create",
                        event=event.id,
                        number=None,
                        title=title(event),
                        body=body(event, outcomes.get(event.id), run),
                    )
                )
                continue
            text = (
                f"Back in run {link(run)}: {md_text(size(event))} since "
                f"{code(event.first_bad_run)} (last good {code(event.last_good_run)}). "
                f"{numbers}\n\n{marker(event)}\n{run_marker(run)}\n"
            )
            actions.append(Action(kind="reopen", event=event.id, number=back.number, body=text))
            continue
        if run.name in issue.runs:
            continue  # a re-attempt of a run that already wrote here
        metric = defining_metric(event)
        if metric is not None and verdicts.back(event, metric):
            if issue.open:  # reported still, but this run measured every point back
                text = (
                    f"Recovered: run {link(run)} measured every point of this event back "
                    f"within the minimum change. {numbers}\n\n{run_marker(run)}\n"
                )
                actions.append(Action(kind="close", event=event.id, number=issue.number, body=text))
            continue
        head = "Still open" if issue.open else "Back"
        text = (
            f"{head} in run {link(run)}: {md_text(size(event))}. {numbers}\n\n{run_marker(run)}\n"
        )
        kind = "comment" if issue.open else "reopen"
        actions.append(Action(kind=kind, event=event.id, number=issue.number, body=text))
    for issue in issues:
        if (
            not issue.open
            or issue.tracks() & open_events
            or issue.server not in verdicts.measured
            or run.name in issue.runs
        ):
            continue
        text = (
            f"Recovered: run {link(run)} measured this server back within the minimum "
            f"change.\n\n{run_marker(run)}\n"
        )
        actions.append(Action(kind="close", event=issue.event, number=issue.number, body=text))
    return actions
