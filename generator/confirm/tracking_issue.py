"""A tracking issue as the bot reads it back, and the markers it writes into one (issues.py)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from generator.confirm.events import defining_metric
from generator.core import jsonread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from generator.confirm.events import ConfirmEvent

MARKER = "sglang-ci-event"
BOT = "app/github-actions"  # how gh names the author of what GITHUB_TOKEN wrote
RUN_MARKER = "sglang-ci-run"
_MARKER_RE = re.compile(r"<!-- " + MARKER + r" (\{.*?\}) -->")
ANY_MARKER = re.compile(r"sglang-ci-(event|run)\b")
_RUN_RE = re.compile(r"<!-- " + RUN_MARKER + r" (\S+) -->")


def ignore(_: str) -> None:
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
class IssueRun:
    name: str
    url: str | None


def marker(event: ConfirmEvent) -> str:
    data = {"id": event.id, "server": event.server.as_dict(), "metric": defining_metric(event)}
    # `<`, `>` and the `[` of `##[` as JSON escapes: no value closes the comment and
    # shows, and a log that prints the body reads no command in it.
    shown = json.dumps(data, sort_keys=True)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("##[", "##\\u005b")):
        shown = shown.replace(char, escaped)
    return f"<!-- {MARKER} {shown} -->"


def run_marker(run: IssueRun) -> str:
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
    item: Mapping[str, Any], comments: Sequence[Comment], warn: Callable[[str], None] = ignore
) -> Issue | None:
    """The tracking issue in one of the bot's issues as gh lists it, or None when its body
    has no marker that reads. Of `comments` only those the caller wrote count, the others
    are kept for triage."""
    number, body = int(item["number"]), str(item.get("body") or "")
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
    others = tuple(c for c in comments if not c.mine)
    for c in others:
        if ANY_MARKER.search(c.body):
            warn(f"issue #{number}: a sglang-ci marker in a comment by {c.author}, ignored")
    own = [c for c in comments if c.mine]
    url, created_at = item.get("url"), item.get("createdAt")
    created_at = created_at if isinstance(created_at, str) else None
    events = [(str(data["id"]), created_at)]
    for c in own:
        again = _marker(number, c.body, warn) if MARKER in c.body else None
        if again is not None:
            events.append((str(again["id"]), c.created_at))
    runs = {m[1] for text in (body, *(c.body for c in own)) for m in _RUN_RE.finditer(text)}
    metric = data.get("metric")
    return Issue(
        number=number,
        open=str(item.get("state") or "").upper() == "OPEN",
        event=str(data["id"]),
        server=server,
        runs=frozenset(runs),
        url=url if isinstance(url, str) else None,
        metric=metric if isinstance(metric, str) else None,
        events=tuple(events),
        labels=tuple(
            str(x["name"]) for x in item.get("labels") or () if isinstance(x, dict) and "name" in x
        ),
        created_at=created_at,
        others=others,
    )
