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
commented on, reopened or closed.
`plan` decides, `apply` calls gh; tested against the stand-in gh (tests/standin/bin/gh).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import dataclass, field
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
    from collections.abc import Callable, Mapping, Sequence

MARKER = "sglang-ci-event"
BOT = "app/github-actions"  # how gh names the author of what GITHUB_TOKEN wrote
RUN_MARKER = "sglang-ci-run"
_MARKER_RE = re.compile(r"<!-- " + MARKER + r" (\{.*?\}) -->")
_ANY_MARKER = re.compile(r"sglang-ci-(event|run)\b")
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


def _ignore(_: str) -> None:
    return None


@dataclass(frozen=True, kw_only=True)
class Comment:
    """A comment as gh lists it: who wrote it, GitHub's association of that login with
    the repository, whether the caller wrote it, the text and when."""

    author: str
    association: str
    mine: bool
    body: str
    created_at: str | None


@dataclass(frozen=True, kw_only=True)
class Issue:
    number: int
    open: bool
    event: str  # the event it was opened for
    server: tuple[str, str | None, str | None, str | None]
    runs: frozenset[str]  # runs that already wrote to it (body and comments)
    url: str | None = None
    metric: str | None = None  # the metric that defined its event
    # every event it tracks, with when it started tracking it (the body's, then reopenings)
    events: tuple[tuple[str, str | None], ...] = ()
    labels: tuple[str, ...] = ()
    created_at: str | None = None
    others: tuple[Comment, ...] = field(default=())  # comments by people (triage commands)

    def tracks(self) -> frozenset[str]:
        return frozenset({self.event, *(e for e, _ in self.events)})


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


def _metric(event: Event) -> str | None:
    first = next(iter(by_weight(event.changes)), None)
    return first[0] if first else None


def marker(event: Event) -> str:
    data = {"id": event.id, "server": event.server.as_dict(), "metric": _metric(event)}
    # `<`, `>` and the `[` of `##[` as JSON escapes: no value closes the comment and
    # shows, and a log that prints the body reads no command in it.
    shown = json.dumps(data, sort_keys=True)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("##[", "##\\u005b")):
        shown = shown.replace(char, escaped)
    return f"<!-- {MARKER} {shown} -->"


def run_marker(run: RunInfo) -> str:
    return f"<!-- {RUN_MARKER} {run.name} -->"


def _marker(number: int, text: str, warn: Callable[[str], None]) -> dict[str, Any] | None:
    """The event marker of an issue's body or the bot's comment; None (with a warning when
    something marker-like is there) when it holds none that reads."""
    found = _MARKER_RE.search(text)
    if found is None:
        if MARKER in text:
            warn(f"issue #{number}: a malformed {MARKER} marker, skipped")
        return None
    try:
        data = jsonread.loads(found[1])
    except jsonread.JsonRefused:
        warn(f"issue #{number}: a malformed {MARKER} marker (not JSON), skipped")
        return None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data["id"]:
        warn(f"issue #{number}: a {MARKER} marker without an event id, skipped")
        return None
    if not isinstance(data.get("server") or {}, dict):
        warn(f"issue #{number}: a {MARKER} marker whose server is not an object, skipped")
        return None
    return data


def parse_issue(
    number: int,
    state: str,
    body: str,
    comments: Sequence[str | Comment],
    url: str | None = None,
    *,
    warn: Callable[[str], None] = _ignore,
    labels: Sequence[str] = (),
    created_at: str | None = None,
) -> Issue | None:
    """The tracking issue in one of the bot's listed issues, or None when its body has no
    marker that reads. `comments`: plain texts are the bot's; of Comment objects only
    those the caller wrote count, the others are kept for triage."""
    data = _marker(number, body, warn)
    if data is None:
        return None
    s = data.get("server") or {}
    server = (
        str(s.get("config") or ""),
        s.get("fingerprint"),
        s.get("runner_label"),
        s.get("image_family"),
    )
    mine = [
        c
        if isinstance(c, Comment)
        else Comment(author=BOT, association="NONE", mine=True, body=c, created_at=None)
        for c in comments
    ]
    others = tuple(c for c in mine if not c.mine)
    for c in others:
        if _ANY_MARKER.search(c.body):
            warn(f"issue #{number}: a sglang-ci marker in a comment by {c.author}, ignored")
    own = [c for c in mine if c.mine]
    events = [(str(data["id"]), created_at)]
    for c in own:
        again = _marker(number, c.body, warn) if MARKER in c.body else None
        if again is not None:
            events.append((str(again["id"]), c.created_at))
    runs = {m[1] for text in (body, *(c.body for c in own)) for m in _RUN_RE.finditer(text)}
    metric = data.get("metric")
    return Issue(
        number=number,
        open=state.upper() == "OPEN",
        event=str(data["id"]),
        server=server,
        runs=frozenset(runs),
        url=url,
        metric=metric if isinstance(metric, str) else None,
        events=tuple(events),
        labels=tuple(labels),
        created_at=created_at,
        others=others,
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


def tonight(event: Event, verdicts: Verdicts) -> str:
    """This run's numbers at the event's points: the metric that defines it, each point's
    value and change against its baseline."""
    metric = _metric(event)
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


def _returning(event: Event, issues: Sequence[Issue]) -> Issue | None:
    """The bot's closed issue of the same server and metric: the step came back."""
    metric = _metric(event)
    back = [
        i for i in issues if not i.open and i.server == event.server.key() and i.metric == metric
    ]
    return max(back, key=lambda i: i.number) if back else None


def plan(
    verdicts: Verdicts,
    outcomes: Mapping[str, Outcome],
    issues: Sequence[Issue],
    run: RunInfo,
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
                f"Back in run {_link(run)}: {md_text(size(event))} since "
                f"{code(event.first_bad_run)} (last good {code(event.last_good_run)}). "
                f"{numbers}\n\n{marker(event)}\n{run_marker(run)}\n"
            )
            actions.append(
                Action(kind="reopen", event=event.id, number=back.number, title=None, body=text)
            )
            continue
        if run.name in issue.runs:
            continue  # a re-attempt of a run that already wrote here
        metric = _metric(event)
        if metric is not None and verdicts.back(event, metric):
            if issue.open:  # reported still, but this run measured every point back
                text = (
                    f"Recovered: run {_link(run)} measured every point of this event back "
                    f"within the minimum change. {numbers}\n\n{run_marker(run)}\n"
                )
                actions.append(
                    Action(kind="close", event=event.id, number=issue.number, title=None, body=text)
                )
            continue
        head = "Still open" if issue.open else "Back"
        text = (
            f"{head} in run {_link(run)}: {md_text(size(event))}. {numbers}\n\n{run_marker(run)}\n"
        )
        kind = "comment" if issue.open else "reopen"
        actions.append(
            Action(kind=kind, event=event.id, number=issue.number, title=None, body=text)
        )
    for issue in issues:
        if (
            not issue.open
            or issue.tracks() & open_events
            or issue.server not in verdicts.measured
            or run.name in issue.runs
        ):
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
        return self._run([self.program, *args, "--repo", self.repo], args)

    def api_list(self, endpoint: str) -> list[Any]:
        """The items of the list `gh api repos/OWNER/REPO/ENDPOINT` answers, every page
        (one compact JSON value a line, as gh's --jq prints them)."""
        path = f"repos/{self.repo}/{endpoint}"
        argv = [self.program, "api", "--paginate", "--jq", ".[]", path]
        try:
            return [json.loads(line) for line in self._run(argv, ("api", path)).splitlines()]
        except ValueError as exc:
            msg = f"gh api {path}: not JSON: {exc}"
            raise IssueError(msg) from exc

    def _run(self, argv: list[str], args: Sequence[str]) -> str:
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


def _author(item: Mapping[str, Any]) -> str:
    author = item.get("author")
    login = author.get("login") if isinstance(author, dict) else None
    return login if isinstance(login, str) else ""


def _comment(item: object) -> Comment | None:
    if not isinstance(item, dict):
        return None
    created = item.get("createdAt")
    return Comment(
        author=_author(item) or "unknown",
        association=str(item.get("authorAssociation") or "NONE"),
        mine=item.get("viewerDidAuthor") is True,
        body=str(item.get("body") or ""),
        created_at=created if isinstance(created, str) else None,
    )


def _labels(item: Mapping[str, Any]) -> list[str]:
    return [str(x["name"]) for x in item.get("labels") or () if isinstance(x, dict) and "name" in x]


def _listing(text: str) -> list[dict[str, Any]]:
    try:
        listed = json.loads(text or "[]")
    except ValueError as exc:
        msg = f"gh issue list: not JSON: {exc}"
        raise IssueError(msg) from exc
    if not isinstance(listed, list):
        msg = "gh issue list: not a list of issues"
        raise IssueError(msg)
    return [i for i in listed if isinstance(i, dict) and isinstance(i.get("number"), int)]


def _parsed(
    item: Mapping[str, Any], comments: Sequence[Comment], warn: Callable[[str], None]
) -> Issue | None:
    url, created = item.get("url"), item.get("createdAt")
    return parse_issue(
        int(item["number"]),
        str(item.get("state") or ""),
        str(item.get("body") or ""),
        comments,
        url if isinstance(url, str) else None,
        warn=warn,
        labels=_labels(item),
        created_at=created if isinstance(created, str) else None,
    )


def issues(
    gh: Gh,
    label: str,
    wanted: set[str],
    *,
    bot: str = BOT,
    servers: frozenset[tuple[str, str | None, str | None, str | None]] = frozenset(),
    open_issues: bool = False,
    warn: Callable[[str], None] = _ignore,
) -> list[Issue]:
    """The bot's tracking issues with `label`; the comments are read for the issues of the
    events in `wanted`, of the servers in `servers` (a step that came back) and, with
    `open_issues`, for every open one (triage).
    A marker in an issue someone else opened is ignored with a warning."""
    fields = "number,state,body,url,author,labels,createdAt"
    args = ("issue", "list", "--state", "all", "--label", label, "--limit", str(LIST_LIMIT))
    out = []
    for item in _listing(gh(*args, "--json", fields)):
        number, body_text = int(item["number"]), str(item.get("body") or "")
        if _author(item) != bot:
            if _ANY_MARKER.search(body_text):
                warn(f"issue #{number} was opened by {_author(item) or 'unknown'}, not by "
                     f"{bot}: its sglang-ci marker is ignored")  # fmt: skip
            continue
        found = _parsed(item, (), _ignore)
        if found is None:
            _parsed(item, (), warn)  # once, with what was wrong with its marker
            continue
        if found.event in wanted or found.server in servers or (open_issues and found.open):
            try:
                view = json.loads(gh("issue", "view", str(number), "--json", "comments") or "{}")
            except ValueError as exc:
                msg = f"gh issue view {number}: not JSON: {exc}"
                raise IssueError(msg) from exc
            listed = view.get("comments") if isinstance(view, dict) else None
            comments = [c for c in map(_comment, listed or ()) if c is not None]
            found = _parsed(item, comments, warn) or found
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
        e: Tracked(event=e, number=i.number, url=i.url, open=i.open, action=None)
        for i in listed
        for e in i.tracks() & {e.id for e in verdicts.events}
    }
    for t in done:
        url = t.url or (urls.get(t.number) if t.number is not None else None)
        out[t.event] = Tracked(
            event=t.event, number=t.number, url=url, open=t.open, action=t.action
        )
    return list(out.values())
