"""What earlier verdicts and the night's A/B said about an event (docs/results.md,
"Events").

- **Earlier verdicts**: the history run that last measured a server keeps, in its
  manifest, the final verdicts of that night (the A/B's outcome applied). An event of
  that run is the same as one found now when it has the same id, or when its first bad run
  lies inside the worsening found now: it keeps its id, first bad and last good run, and
  once confirmed (by the next run or by an A/B) it stays confirmed without confirming
  again, so a run fails only on the night its regression is confirmed.
- **The A/B** (`results compare --confirmation FILE`, written by `sglang-ci confirm
  outcomes`: `[{"event": ID, "result": "confirmed" | "cleared" | ...}]`): a confirmed
  event is a regression tonight; a cleared one is reported as `cleared` and its points and
  curves are `ok`. Other results leave the event as the statistics found it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from generator.results.events import CONFIRMED, Event
from generator.results.history import ServerKey
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

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


def _server(data: Mapping[str, Any]) -> ServerKey:
    s = data.get("server") or {}
    return ServerKey(
        config=str(data.get("config") or s.get("config") or ""),
        fingerprint=s.get("fingerprint"),
        runner_label=s.get("runner_label"),
        image_family=s.get("image_family"),
    )


def earlier_events(manifest: str | None, server: ServerKey) -> list[Earlier] | None:
    """The events of `server` in the verdicts an admitted run's manifest keeps (None when
    it keeps no events: a run of the earlier layout, or verdicts of the earlier shape)."""
    if manifest is None:
        return None
    try:
        data = json.loads(Path(manifest).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    verdicts = data.get("verdicts") if isinstance(data, dict) else None
    found = verdicts.get("events") if isinstance(verdicts, dict) else None
    if not isinstance(found, list) or not isinstance(verdicts, dict):
        return None
    # The run was judged under a working name ("run"); the history knows it by its own.
    own = str(data.get("name") or Path(manifest).parent.name)
    named = {verdicts.get("current"): own}
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
            )
        )
    return out


def confirmed_in(earlier: Sequence[Earlier] | None) -> frozenset[str]:
    """The first bad runs of the events an earlier night confirmed (by its next run or by
    an A/B) and still open then."""
    return frozenset(
        e.first_bad_run for e in earlier or () if e.state == CONFIRMED and e.first_bad_run
    )


def carried(event: Event, earlier: Sequence[Earlier] | None, stretch: Sequence[str]) -> Event:
    """`event` with what the server's previous run said of the same event: the one with
    its id, else one whose first bad run lies in the worsening's runs now (`stretch`),
    else, when the worsening covered the previous run too, the event open then whose
    first bad run is nearest. With those verdicts known (`earlier` not None), an event is
    newly confirmed when it is confirmed now and was not then: what the runs reported is
    what counts, whatever the replay of the series says of earlier runs."""
    if earlier is None:
        return event
    open_ = [e for e in earlier if e.state != CLEARED]
    same = next((e for e in earlier if e.id == event.id), None) or next(
        (e for e in open_ if e.first_bad_run in stretch), None
    )
    if same is None and len(stretch) >= 2 and open_:
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
        data = json.loads(path.read_text(encoding="utf-8"))
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
