"""One tracking issue per confirmed event, kept with the GitHub CLI (docs/confirmation.md).

- An event confirmed this run (by the next run or by an A/B) without an issue: one is
  opened, labelled with the catalog's label.
- An event still open with an open issue: one comment with this run and the size of the
  change (never twice for one run: a re-attempt finds its own comment).
- An issue whose event was closed: reopened with that comment.
- An open issue whose event is no longer reported although its server was measured this
  run: closed with a comment (recovered). A server not measured this run (another cron
  group) leaves its issue alone.

An issue is found again by the event id in a marker line of its body, among the issues
with the label (open and closed), so re-runs and re-attempts never open a second one.
`plan` decides, `apply` calls gh; tested against the stand-in gh (tests/standin/bin/gh).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.confirm.events import CONFIRMED, Event, Verdicts, by_weight
from generator.confirm.outcomes import Outcome, judgement_text, short
from generator.confirm.tracked import Tracked
from generator.errors import SglangCIError
from generator.launch import jsonread
from generator.launch.logtext import md_code as code
from generator.launch.logtext import md_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

MARKER = "sglang-ci-event"
RUN_MARKER = "sglang-ci-run"
_MARKER_RE = re.compile(r"<!-- " + MARKER + r" (\{.*?\}) -->")
_RUN_RE = re.compile(r"<!-- " + RUN_MARKER + r" (\S+) -->")
# A link target from the run's own facts: https, nothing that ends the destination.
_LINK = re.compile(r"https://[^\s()<>`\\]+")
_NUMBER_RE = re.compile(r"/issues/(\d+)\s*$")
LIST_LIMIT = 1000
COLOR = "d73a4a"
PAST = {"close": "closed", "reopen": "reopened"}


class IssueError(SglangCIError):
    """gh failed (exit 1): the tracking issues could not be kept."""

    return_code = 1


@dataclass(frozen=True, kw_only=True)
class Issue:
    number: int
    open: bool
    event: str
    server: tuple[str, str | None, str | None, str | None]
    runs: frozenset[str]  # runs that already wrote to it (body and comments)
    url: str | None = None


@dataclass(frozen=True, kw_only=True)
class Action:
    kind: str  # create | comment | reopen | close
    event: str
    number: int | None
    title: str | None
    body: str


@dataclass(frozen=True, kw_only=True)
class RunInfo:
    name: str
    url: str | None


def marker(event: Event) -> str:
    data = {"id": event.id, "server": event.server.as_dict()}
    # `<`, `>` and the `[` of `##[` as JSON escapes: no value closes the comment and
    # shows, and a log that prints the body reads no command in it.
    shown = json.dumps(data, sort_keys=True)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("##[", "##\\u005b")):
        shown = shown.replace(char, escaped)
    return f"<!-- {MARKER} {shown} -->"


def run_marker(run: RunInfo) -> str:
    return f"<!-- {RUN_MARKER} {run.name} -->"


def parse_issue(
    number: int, state: str, body: str, comments: Sequence[str], url: str | None = None
) -> Issue | None:
    """The tracking issue in a listed issue, or None when its body has no marker."""
    found = _MARKER_RE.search(body)
    if found is None:
        return None
    try:
        data = jsonread.loads(found[1])
    except jsonread.JsonRefused:
        return None  # a marker someone edited: not one of ours
    if not isinstance(data, dict) or "id" not in data:
        return None
    s = data.get("server") or {}
    if not isinstance(s, dict):
        return None
    server = (
        str(s.get("config") or ""),
        s.get("fingerprint"),
        s.get("runner_label"),
        s.get("image_family"),
    )
    runs = {m[1] for text in (body, *comments) for m in _RUN_RE.finditer(text)}
    return Issue(
        number=number,
        open=state.upper() == "OPEN",
        event=str(data["id"]),
        server=server,
        runs=frozenset(runs),
        url=url,
    )


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:+.1%}"


def size(event: Event) -> str:
    """The change of each metric with its interval: `output_throughput_per_gpu -8.1%
    [-9.0%, -7.2%]`."""
    parts = [
        f"{m} {_percent(c.change)} [{_percent(c.low)}, {_percent(c.high)}]"
        for m, c in by_weight(event.changes)
    ]
    return "; ".join(parts) or "size not reported"


def _link(run: RunInfo) -> str:
    if run.url and _LINK.fullmatch(run.url):
        return f"[{md_text(run.name)}]({run.url})"
    return code(run.name)


def title(event: Event) -> str:
    first = next(iter(by_weight(event.changes)), None)
    change = f" {_percent(first[1].change)} {first[0]}" if first else ""
    return f"Performance regression: {event.server.config}{change} since {event.first_bad_run}"


def body(event: Event, outcome: Outcome | None, run: RunInfo) -> str:
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
            f" (run {_link(run)})"
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


def plan(
    verdicts: Verdicts,
    outcomes: Mapping[str, Outcome],
    issues: Sequence[Issue],
    run: RunInfo,
) -> list[Action]:
    """What to do with the tracking issues after this run (pure: no gh)."""
    by_event = {i.event: i for i in issues}
    open_events = {e.id for e in verdicts.events}
    actions: list[Action] = []
    for event in verdicts.events:
        issue = by_event.get(event.id)
        if event.state != CONFIRMED:
            continue
        if issue is None:
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
        if run.name in issue.runs:
            continue  # a re-attempt of a run that already wrote here
        text = f"Still open in run {_link(run)}: {md_text(size(event))}.\n\n{run_marker(run)}\n"
        kind = "comment" if issue.open else "reopen"
        actions.append(
            Action(kind=kind, event=event.id, number=issue.number, title=None, body=text)
        )
    for issue in issues:
        if not issue.open or issue.event in open_events or issue.server not in verdicts.measured:
            continue
        text = (
            f"Recovered: run {_link(run)} measured this server back within the minimum "
            f"change.\n\n{run_marker(run)}\n"
        )
        actions.append(
            Action(kind="close", event=issue.event, number=issue.number, title=None, body=text)
        )
    return actions


class Gh:
    """The GitHub CLI on one repository."""

    def __init__(self, repo: str, program: str = "gh") -> None:
        self.repo = repo
        self.program = program

    def __call__(self, *args: str) -> str:
        argv = [self.program, *args, "--repo", self.repo]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
        except (OSError, subprocess.SubprocessError) as exc:
            msg = f"cannot run {self.program}: {exc}"
            raise IssueError(msg) from exc
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            msg = f"gh {' '.join(args[:2])} failed ({done.returncode}): {first}"
            raise IssueError(msg)
        return done.stdout

    def with_body(self, args: list[str], text: str) -> str:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp, "body.md")
            path.write_text(text, encoding="utf-8")
            return self(*args, "--body-file", str(path))


def issues(gh: Gh, label: str, wanted: set[str]) -> list[Issue]:
    """The tracking issues with `label`; the comments are read for the open events."""
    listed: Any = json.loads(
        gh(
            "issue",
            "list",
            "--state",
            "all",
            "--label",
            label,
            "--limit",
            str(LIST_LIMIT),
            "--json",
            "number,state,body,url",
        )
        or "[]"
    )
    out = []
    for item in listed:
        url = item.get("url")
        url = url if isinstance(url, str) else None
        found = parse_issue(int(item["number"]), str(item["state"]), str(item["body"]), (), url)
        if found is None:
            continue
        if found.event in wanted:
            view = json.loads(gh("issue", "view", str(found.number), "--json", "comments"))
            comments = [str(c.get("body") or "") for c in view.get("comments") or ()]
            found = parse_issue(found.number, str(item["state"]), str(item["body"]), comments, url)
        if found is not None:
            out.append(found)
    return out


def apply(
    gh: Gh, actions: Sequence[Action], label: str, done: list[Tracked] | None = None
) -> list[str]:
    """Carry out the actions; one line per action done. Each action done is also appended
    to `done` as it completes (what a failing gh leaves done is known)."""
    lines = []
    kept = done if done is not None else []
    if any(a.kind == "create" for a in actions):
        gh("label", "create", label, "--color", COLOR, "--description",
           "A performance regression sglang-ci confirmed", "--force")  # fmt: skip
    for a in actions:
        if a.kind == "create":
            url = gh.with_body(
                ["issue", "create", "--title", a.title or "", "--label", label], a.body
            ).strip()
            number = _NUMBER_RE.search(url)
            kept.append(
                Tracked(
                    event=a.event,
                    number=int(number[1]) if number else None,
                    url=url or None,
                    open=True,
                    action="opened",
                )
            )
            lines.append(f"opened {url} for event {a.event}")
            continue
        if a.kind == "comment":
            gh.with_body(["issue", "comment", str(a.number)], a.body)
            lines.append(f"commented on #{a.number} (event {a.event})")
        else:
            gh("issue", a.kind, str(a.number), "--comment", a.body)
            lines.append(f"{PAST[a.kind]} #{a.number} (event {a.event})")
        action = "commented" if a.kind == "comment" else PAST[a.kind]
        kept.append(
            Tracked(event=a.event, number=a.number, url=None, open=a.kind != "close", action=action)
        )
    return lines


def tracked(verdicts: Verdicts, listed: Sequence[Issue], done: Sequence[Tracked]) -> list[Tracked]:
    """What the run leaves: each issue of an event of this run, or one this run acted on,
    with its URL (from the listing) and the action taken (None: nothing this run)."""
    urls = {i.number: i.url for i in listed}
    out = {
        i.event: Tracked(event=i.event, number=i.number, url=i.url, open=i.open, action=None)
        for i in listed
        if i.event in {e.id for e in verdicts.events}
    }
    for t in done:
        url = t.url or (urls.get(t.number) if t.number is not None else None)
        out[t.event] = Tracked(
            event=t.event, number=t.number, url=url, open=t.open, action=t.action
        )
    return list(out.values())
