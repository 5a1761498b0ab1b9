"""What earlier verdicts and the night's A/B said about an event (docs/results.md,
"Events").

- **Earlier verdicts**: the history run that last measured a server keeps, in its
  manifest, the final verdicts of that night (the A/B's outcome applied). An event of
  that run is the same as one found now when it has the same id, or when its first bad run
  lies inside the worsening found now: it keeps its id, first bad and last good run, and
  once confirmed (by the next run or by an A/B) it stays confirmed without confirming
  again, so a run fails only on the night its regression is confirmed. The verdicts also
  keep the server's confirmed changes (`confirmed_changes`), closed ones included, while
  their first bad run lies in the judgement's window: a worsening that opens on one of
  them again is confirmed from its onset (judge.py) and is the same event, not a new one.
- **The A/B** (`results compare --confirmation FILE`, written by `sglang-ci confirm
  outcomes`: `[{"event": ID, "result": "confirmed" | "cleared" | ...}]`): a confirmed
  event is a regression tonight; a cleared one is reported as `cleared` and its points and
  curves are `ok`. Other results leave the event as the statistics found it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from generator.launch import jsonread
from generator.results.events import CONFIRMED, Event
from generator.results.history import ServerKey
from generator.results.judge import SERVER
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

CLEARED = "cleared"
AB = "ab"
RERUN = "re-run"


@dataclass(frozen=True, kw_only=True)
class Earlier:
    """An event as an earlier run's verdicts reported it."""

    id: str
    state: str
    first_bad_run: str | None
    last_good_run: str | None
    confirmed_by: str | None
    confirmed_in: str | None
    server: ServerKey | None = None

    def as_dict(self) -> dict[str, Any]:
        """As `results compare --json` keeps a confirmed change (`confirmed_changes`)."""
        return {
            "id": self.id,
            "state": self.state,
            "config": self.server.config if self.server else None,
            "server": self.server.as_dict() if self.server else None,
            "first_bad_run": self.first_bad_run,
            "last_good_run": self.last_good_run,
            "confirmed_by": self.confirmed_by,
            "confirmed_in": self.confirmed_in,
        }


def _server(data: Mapping[str, Any]) -> ServerKey:
    s = data.get("server") or {}
    return ServerKey(
        config=str(data.get("config") or s.get("config") or ""),
        fingerprint=s.get("fingerprint"),
        runner_label=s.get("runner_label"),
        image_family=s.get("image_family"),
    )


@dataclass(frozen=True, kw_only=True)
class Memory:
    """What an earlier run's verdicts say of one server."""

    events: list[Earlier] | None  # None: that run kept no events (an earlier layout)
    # The server's confirmed changes, open or closed since: the judgement keeps them
    # confirmed (judge.judge_server) while their first bad run lies in its window.
    changes: tuple[Earlier, ...] = ()

    @property
    def known(self) -> frozenset[str]:
        """The first bad runs of the server's confirmed changes."""
        return confirmed_in(self.changes) | confirmed_in(self.events)

    def kept(self, runs: Collection[str]) -> Memory:
        """The confirmed changes, earlier ones and the events confirmed then, whose first
        bad run is one of `runs` (the judgement's window)."""
        confirmed = [e for e in (*self.changes, *(self.events or ())) if e.state == CONFIRMED]
        by_id = {e.id: e for e in confirmed if e.first_bad_run in runs}
        return Memory(events=self.events, changes=tuple(by_id[k] for k in sorted(by_id)))


def as_earlier(e: Event) -> Earlier:
    """An event as the next run reads it from this run's verdicts."""
    return Earlier(
        id=e.id,
        state=e.state,
        first_bad_run=e.first_bad_run,
        last_good_run=e.last_good_run,
        confirmed_by=e.confirmed_by,
        confirmed_in=e.confirmed_in,
        server=e.server,
    )


def earlier(manifest: str | None, server: ServerKey) -> Memory:
    """The events of `server` and its confirmed changes in the verdicts an admitted run's
    manifest keeps."""
    if manifest is None:
        return Memory(events=None)
    try:
        data = jsonread.load(Path(manifest))
    except (OSError, ValueError):
        return Memory(events=None)
    verdicts = data.get("verdicts") if isinstance(data, dict) else None
    if not isinstance(verdicts, dict):
        return Memory(events=None)
    # The run was judged under a working name ("run"); the history knows it by its own.
    own = str(data.get("name") or Path(manifest).parent.name)
    named = {verdicts.get("current"): own}
    changes = _events(verdicts.get("confirmed_changes"), named, server) or []
    return Memory(
        events=_events(verdicts.get("events"), named, server),
        changes=tuple(e for e in changes if e.state == CONFIRMED),
    )


def _events(found: object, named: Mapping[object, str], server: ServerKey) -> list[Earlier] | None:
    if not isinstance(found, list):
        return None
    out = []
    for e in found:
        if not isinstance(e, dict) or "id" not in e or _server(e) != server:
            continue
        out.append(
            Earlier(
                id=str(e["id"]),
                state=str(e.get("state") or ""),
                first_bad_run=named.get(e.get("first_bad_run"), e.get("first_bad_run")),
                last_good_run=e.get("last_good_run"),
                confirmed_by=e.get("confirmed_by"),
                confirmed_in=named.get(e.get("confirmed_in"), e.get("confirmed_in")),
                server=server,
            )
        )
    return out


def confirmed_in(earlier: Sequence[Earlier] | None) -> frozenset[str]:
    """The first bad runs of the events an earlier night confirmed (by its next run or by
    an A/B) and still open then."""
    return frozenset(
        e.first_bad_run for e in earlier or () if e.state == CONFIRMED and e.first_bad_run
    )


def carried(
    event: Event,
    earlier: Sequence[Earlier] | None,
    stretch: Sequence[str],
    changes: Sequence[Earlier] = (),
) -> Event:
    """`event` with what the server's previous run said of the same event: the one with
    its id (among its events, then among its confirmed `changes`, closed since), else one
    whose first bad run lies in the worsening's runs now (`stretch`), else, when the
    worsening covered the previous run too, the event open then whose first bad run is
    nearest. With those verdicts known (`earlier` not None), an event is newly confirmed
    when it is confirmed now and was not then: what the runs reported is what counts,
    whatever the replay of the series says of earlier runs."""
    if earlier is None:
        return event
    open_ = [e for e in earlier if e.state != CLEARED]
    same = (
        next((e for e in (*earlier, *changes) if e.id == event.id), None)
        or next((e for e in open_ if e.first_bad_run in stretch), None)
    )  # fmt: skip
    # A worsening whose onset moved to a later step says the runs before it were good: it
    # is not an event that began on one of them.
    moved = any(f.finding.moved for f in event.found if f.scope == SERVER)
    if same is None and len(stretch) >= 2 and open_ and not moved:
        same = min(open_, key=lambda e: _distance(e.first_bad_run, event.first_bad_run))
    if same is None:
        return replace(event, new_confirmation=event.state == CONFIRMED)
    out = replace(
        event,
        id=same.id,
        first_bad_run=same.first_bad_run or event.first_bad_run,
        last_good_run=same.last_good_run or event.last_good_run,
        new_confirmation=event.state == CONFIRMED and same.state != CONFIRMED,
    )
    if same.state == CONFIRMED:
        out = replace(
            out,
            state=CONFIRMED,
            new_confirmation=False,
            confirmed_by=same.confirmed_by or RERUN,
            confirmed_in=same.confirmed_in or out.confirmed_in,
        )
    return out


def _distance(a: str | None, b: str) -> tuple[int, str]:
    """A sort key: an equal name first, then by name (run names start with their time)."""
    return (0 if a == b else 1, a or "")


def load_confirmation(path: Path) -> dict[str, str]:
    """event id -> the A/B's result, from `confirm outcomes --confirmation FILE`."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as exc:
        msg = f"{path}: cannot read the A/B outcomes: {exc}"
        raise ResultsError(msg) from exc
    if not isinstance(data, list) or not all(
        isinstance(d, dict) and isinstance(d.get("event"), str) for d in data
    ):
        msg = f'{path}: not A/B outcomes (a list of {{"event": ..., "result": ...}})'
        raise ResultsError(msg)
    return {str(d["event"]): str(d.get("result")) for d in data}


def with_outcome(event: Event, result: str | None) -> Event:
    """`event` after the night's A/B (None: no A/B for it)."""
    if result == CONFIRMED and event.state != CONFIRMED:
        return replace(
            event, state=CONFIRMED, new_confirmation=True, confirmed_by=AB,
            confirmed_in=event.current_run,
        )  # fmt: skip
    if result == CONFIRMED:
        return replace(event, confirmed_by=event.confirmed_by or AB)
    if result == CLEARED and event.state != CONFIRMED:
        return replace(event, state=CLEARED, new_confirmation=False)
    return event
