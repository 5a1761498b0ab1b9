"""What `sglang-ci confirm issues --out FILE` did, kept for the dashboard: per event of the
run that has a tracking issue, the issue's number, URL and state and the action taken this
run (schema sglang-ci/issues/1). The events job writes it into the run's confirmation
directory, `results admit` keeps it there, and `results report` links each event to its
issue from the newest run that names it.

    {"schema": "sglang-ci/issues/1", "run": "...", "repository": "owner/repo",
     "enabled": true, "error": null,
     "issues": [{"event": "ev-...", "number": 12, "url": "https://...", "open": true,
                 "action": "opened"}]}

`action` is `opened`, `commented`, `reopened`, `closed`, or null (the issue exists and
nothing was done this run: a re-attempt, or a server another cron group measures).
`error` is gh's failure when it stopped the command; what was done before it is listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TypedDict

SCHEMA = "sglang-ci/issues/1"
FILE = "issues.json"
ACTIONS = ("opened", "commented", "reopened", "closed")


@dataclass(frozen=True, kw_only=True)
class Tracked:
    """An event's tracking issue, and what this run did with it (None: nothing)."""

    event: str
    number: int | None
    url: str | None
    open: bool
    action: str | None

    def as_dict(self) -> dict[str, str | int | bool | None]:
        return dict(self.__dict__)


class IssuesDocument(TypedDict):
    """The run's tracking issues (module docstring)."""

    schema: str
    run: str
    repository: str
    enabled: bool
    error: str | None
    issues: list[dict[str, str | int | bool | None]]


def document(
    *,
    run: str,
    repository: str,
    enabled: bool,
    issues: Iterable[Tracked],
    error: str | None = None,
) -> IssuesDocument:
    return {
        "schema": SCHEMA,
        "run": run,
        "repository": repository,
        "enabled": enabled,
        "error": error,
        "issues": [t.as_dict() for t in sorted(issues, key=lambda t: t.event)],
    }


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def read(data: object) -> list[Tracked]:
    """The issues of one document; [] when `data` is not one (another JSON file)."""
    if not isinstance(data, Mapping) or data.get("schema") != SCHEMA:
        return []
    out = []
    for item in data.get("issues") or ():
        if not isinstance(item, Mapping) or not isinstance(item.get("event"), str):
            continue
        url = item.get("url")
        action = item.get("action")
        out.append(
            Tracked(
                event=item["event"],
                number=_number(item.get("number")),
                url=url if isinstance(url, str) and url.startswith("https://") else None,
                open=bool(item.get("open")),
                action=action if action in ACTIONS else None,
            )
        )
    return out
