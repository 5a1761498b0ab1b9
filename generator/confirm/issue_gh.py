"""The tracking issues through gh: the bot's as gh lists them, `issues.plan` carried out."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from generator.confirm.tracked import Tracked
from generator.confirm.tracking_issue import ANY_MARKER, BOT, Comment, ignore, parse_issue
from generator.errors import SglangCIError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from generator.confirm.events import CompareEvents
    from generator.confirm.issues import Action
    from generator.confirm.tracking_issue import Issue

LIST_LIMIT = 1000
_NUMBER_RE = re.compile(r"/issues/(\d+)\s*$")
COLOR = "d73a4a"
PAST = {"close": "closed", "reopen": "reopened"}


class IssueError(SglangCIError):
    """gh failed (exit 1): the tracking issues could not be kept."""

    return_code = 1


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
        return [
            _json(line, f"gh api {path}") for line in self._run(argv, ("api", path)).splitlines()
        ]

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


def _json(text: str, what: str) -> Any:  # noqa: ANN401 (arbitrary JSON, as json.loads)
    try:
        return json.loads(text)
    except ValueError as exc:
        msg = f"{what}: not JSON: {exc}"
        raise IssueError(msg) from exc


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


def _listing(text: str) -> list[dict[str, Any]]:
    listed = _json(text or "[]", "gh issue list")
    if not isinstance(listed, list):
        msg = "gh issue list: not a list of issues"
        raise IssueError(msg)
    return [i for i in listed if isinstance(i, dict) and isinstance(i.get("number"), int)]


def issues(
    gh: Gh,
    label: str,
    wanted: set[str],
    *,
    bot: str = BOT,
    servers: frozenset[tuple[str, str | None, str | None, str | None]] = frozenset(),
    open_issues: bool = False,
    warn: Callable[[str], None] = ignore,
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
            if ANY_MARKER.search(body_text):
                warn(f"issue #{number} was opened by {_author(item) or 'unknown'}, not by "
                     f"{bot}: its sglang-ci marker is ignored")  # fmt: skip
            continue
        found = parse_issue(item, ())
        if found is None:
            parse_issue(item, (), warn)  # once, with what was wrong with its marker
            continue
        if found.event in wanted or found.server in servers or (open_issues and found.open):
            shown = gh("issue", "view", str(number), "--json", "comments")
            view = _json(shown or "{}", f"gh issue view {number}")
            listed = view.get("comments") if isinstance(view, dict) else None
            comments = [c for c in map(_comment, listed or ()) if c is not None]
            found = parse_issue(item, comments, warn) or found
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
            found = _NUMBER_RE.search(url)
            number = int(found[1]) if found else None
            kept.append(
                Tracked(event=a.event, number=number, url=url or None, open=True, action="opened")
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


def tracked(
    verdicts: CompareEvents, listed: Sequence[Issue], done: Sequence[Tracked]
) -> list[Tracked]:
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
        out[t.event] = replace(t, url=url)
    return list(out.values())
