"""Triage: a person marks an event `acknowledged`, `invalid` (noise or infra) or `fixed` on
its tracking issue, and the next run's events job reads the mark back through gh and keeps
it with the run in the history (schema sglang-ci/triage/1, docs/confirmation.md):

- a label on the issue: `sglang-ci:acknowledged`, `sglang-ci:invalid-noise`,
  `sglang-ci:invalid-infra`, `sglang-ci:fixed` (who and when from the issue's label events);
  GitHub lets only people with triage access label an issue;
- a command line in a comment: `/sglang-ci acknowledge`, `/sglang-ci invalid noise|infra
  [note]`, `/sglang-ci fixed [note]`, counted only from a login GitHub associates with the
  repository as OWNER, MEMBER or COLLABORATOR (anyone else's is ignored with a warning).

The newest mark of an event stands. A mark applies to the events its issue tracked when it
was made (an issue reopened for a step that came back tracks a new event, unmarked).

    {"schema": "sglang-ci/triage/1", "run": "...",
     "marks": [{"event": "ev-...", "issue": 12, "state": "invalid", "reason": "infra",
                "note": "...", "by": "alice", "at": "2026-01-05T09:12:00Z",
                "source": "comment"}]}

`results compare` never fails a run on an event marked `invalid`; the dashboard and
`results events` show every mark.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from generator.confirm.tracking_issue import Issue

SCHEMA = "sglang-ci/triage/1"
FILE = "triage.json"
STATES = ("acknowledged", "invalid", "fixed")
REASONS = ("noise", "infra")
SETTLED = ("invalid", "fixed")  # the bot leaves the issue as the person left it
LABELS: dict[str, tuple[str, str | None]] = {
    "sglang-ci:acknowledged": ("acknowledged", None),
    "sglang-ci:invalid-noise": ("invalid", "noise"),
    "sglang-ci:invalid-infra": ("invalid", "infra"),
    "sglang-ci:fixed": ("fixed", None),
}
TRUSTED = ("OWNER", "MEMBER", "COLLABORATOR")
_VERBS = {"acknowledge": "acknowledged", "ack": "acknowledged", "acknowledged": "acknowledged",
          "invalid": "invalid", "fixed": "fixed"}  # fmt: skip
_COMMAND = re.compile(
    r"^[ \t]*/sglang-ci[ \t]+(\w+)(?:[ \t]+(noise|infra)\b)?[ \t]*([^\n]*)$", re.MULTILINE
)
NOTE_LIMIT = 200


@dataclass(frozen=True, kw_only=True)
class Mark:
    event: str
    issue: int | None
    state: str  # acknowledged | invalid | fixed
    reason: str | None  # noise | infra (invalid only)
    note: str | None
    by: str
    at: str | None  # ISO 8601, UTC
    source: str  # label | comment

    def as_dict(self) -> dict[str, str | int | None]:
        return dict(self.__dict__)

    @property
    def text(self) -> str:
        """`invalid (infra) by alice on 2026-01-05`."""
        what = self.state + (f" ({self.reason})" if self.reason else "")
        when = f" on {self.at[:10]}" if self.at else ""
        return f"{what} by {self.by}{when}"


def _applies(issue: Issue, at: str | None) -> str:
    """The event a mark made at time `at` applies to: the newest `issue` tracked then (any
    when a time is unknown), so a mark made after a reopening names the event it was
    reopened for."""
    known = [(e, t) for e, t in issue.events] or [(issue.event, None)]
    found = [e for e, t in known if at is None or t is None or t <= at]
    return found[-1] if found else known[0][0]


def _commands(issue: Issue, warn: Callable[[str], None]) -> list[Mark]:
    out = []
    for c in issue.others:
        for verb, reason, note in _COMMAND.findall(c.body):
            state = _VERBS.get(verb.lower())
            if state is None:
                warn(f"issue #{issue.number}: unknown triage command '/sglang-ci {verb}' by "
                     f"{c.author}, ignored (acknowledge, invalid noise|infra, fixed)")  # fmt: skip
                continue
            if c.association not in TRUSTED:
                warn(f"issue #{issue.number}: a triage command by {c.author} "
                     f"({c.association}), who may not triage this repository: ignored")  # fmt: skip
                continue
            out.append(
                Mark(
                    event=_applies(issue, c.created_at),
                    issue=issue.number,
                    state=state,
                    reason=(reason or None) if state == "invalid" else None,
                    note=note.strip()[:NOTE_LIMIT] or None,
                    by=c.author,
                    at=c.created_at,
                    source="comment",
                )
            )
    return out


def _labelled(issue: Issue, events: Sequence[Mapping[str, Any]]) -> list[Mark]:
    """The triage labels the issue carries, each by whoever applied it last."""
    out = []
    for label in issue.labels:
        if label not in LABELS:
            continue
        state, reason = LABELS[label]
        applied = [
            e
            for e in events
            if e.get("event") == "labeled" and (e.get("label") or {}).get("name") == label
        ]
        last = applied[-1] if applied else {}
        actor = last.get("actor")
        by = actor.get("login") if isinstance(actor, dict) else None
        at = last.get("created_at")
        at = at if isinstance(at, str) else None
        out.append(
            Mark(
                event=_applies(issue, at),
                issue=issue.number,
                state=state,
                reason=reason,
                note=None,
                by=by if isinstance(by, str) else "unknown",
                at=at,
                source="label",
            )
        )
    return out


def marks(
    issues: Iterable[Issue],
    label_events: Callable[[int], Sequence[Mapping[str, Any]]],
    warn: Callable[[str], None],
) -> list[Mark]:
    """Every mark on the bot's issues: labels (their events read through `label_events`
    only for an issue that carries one) and trusted comments."""
    out: list[Mark] = []
    for issue in issues:
        if any(label in LABELS for label in issue.labels):
            out += _labelled(issue, label_events(issue.number))
        out += _commands(issue, warn)
    return out


def newest(found: Iterable[Mark]) -> dict[str, Mark]:
    """The mark that stands for each event: the newest (a mark without a time, oldest)."""
    out: dict[str, Mark] = {}
    for m in found:
        had = out.get(m.event)
        if had is None or (m.at or "") >= (had.at or ""):
            out[m.event] = m
    return out


class TriageDocument(TypedDict):
    """The run's marks (module docstring); `error`: gh's failure when it stopped the reading."""

    schema: str
    run: str
    marks: list[dict[str, str | int | None]]
    error: NotRequired[str | None]


def document(run: str, found: Iterable[Mark]) -> TriageDocument:
    return {
        "schema": SCHEMA,
        "run": run,
        "marks": [m.as_dict() for m in sorted(found, key=lambda m: (m.event, m.at or ""))],
    }


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def read(data: object) -> list[Mark]:
    """The marks of one document; [] when `data` is not one. A mark whose state is not one
    of STATES is left out."""
    if not isinstance(data, Mapping) or data.get("schema") != SCHEMA:
        return []
    out = []
    for item in data.get("marks") or ():
        if not isinstance(item, Mapping) or item.get("state") not in STATES:
            continue
        event = _text(item.get("event"))
        if event is None:
            continue
        issue = item.get("issue")
        reason = item.get("reason")
        out.append(
            Mark(
                event=event,
                issue=issue if isinstance(issue, int) and not isinstance(issue, bool) else None,
                state=str(item["state"]),
                reason=reason if reason in REASONS else None,
                note=_text(item.get("note")),
                by=_text(item.get("by")) or "unknown",
                at=_text(item.get("at")),
                source="label" if item.get("source") == "label" else "comment",
            )
        )
    return out
