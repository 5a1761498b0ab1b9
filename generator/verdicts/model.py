"""What the verdicts say, typed: one model that `results compare --json` writes and every
reader takes back (docs/results.md, "Verdicts")."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.history import PointKey, ServerKey

SUSPECTED, CONFIRMED, CLEARED = "suspected", "confirmed", "cleared"


@dataclass(frozen=True, kw_only=True)
class Change:
    """A relative change of a metric's value with its 95% interval."""

    change: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float]:
        return {"change": self.change, "low": self.low, "high": self.high}


@dataclass(frozen=True, kw_only=True)
class CurveVerdict:
    """One ISL/OSL pair of a server (its points' throughput, as a whole)."""

    pair: tuple[int, int]
    verdict: str
    change: float | None
    note: str | None = None


@dataclass(frozen=True, kw_only=True)
class Event:
    """One change of one server: from its first bad run, the metrics and points it moved."""

    id: str
    server: ServerKey
    onset: int
    first_bad_run: str
    last_good_run: str | None
    state: str
    confirmed_at: int | None
    confirmed_in: str | None
    confirmed_by: str | None
    new_confirmation: bool
    cause: str | None
    runs: int
    points: tuple[PointKey, ...]
    curves: tuple[tuple[int, int], ...]
    metrics: tuple[str, ...]
    changes: dict[str, Change]
    differences: dict[str, tuple[str | None, str | None]]
    how: tuple[str, ...]


def event_id(server: ServerKey, first_bad_run: str, point: PointKey | None = None) -> str:
    """The id of an event: its server and its first bad run's identity (the GitHub run id:
    the same on the night it is judged and after it is admitted), and its point for a
    change of one point. The same data give the same id on every night."""
    what: list[Any] = [server.as_dict(), first_bad_run]
    if point is not None:
        what.append(point.as_dict())
    text = json.dumps(what, sort_keys=True)
    return "ev-" + hashlib.sha256(text.encode()).hexdigest()[:12]
