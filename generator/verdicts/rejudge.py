"""`results replay`: every admitted run of a history judged again from scratch, against the
runs admitted before it (names sort as the runs started), with its own night's A/B
outcome, and compared with the verdicts its night wrote: a run's verdicts are a function
of the history's data, so the two agree. What is compared: each event's id, state, first
bad and last good run and what confirmed it, and each measured point's verdict (missing
data is the night's matrix's, not the history's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from generator.core import jsonread
from generator.results.load import open_store
from generator.results.runs import MANIFEST, history_dirs
from generator.verdicts.ab import load_outcomes
from generator.verdicts.compare import compare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from generator.catalog.regression import Policy

_Key = TypeVar("_Key")


class ReplayedDoc(TypedDict):
    run: str
    same: bool
    differences: list[str]


class Summary(TypedDict):
    """Event id -> state, first bad and last good run, what confirmed it; measured point
    (config, pair, concurrency) -> its verdict."""

    events: dict[str, tuple[str, str, str | None, str | None]]
    points: dict[tuple[str, str, int], str]


@dataclass(frozen=True, kw_only=True)
class Replayed:
    run: str
    same: bool
    differences: tuple[str, ...]

    def as_dict(self) -> ReplayedDoc:
        return {"run": self.run, "same": self.same, "differences": list(self.differences)}


def summary(verdicts: Mapping[str, Any]) -> Summary:
    """What must agree: each event's identity and fate, each measured point's verdict, of
    a verdicts JSON of any schema (a manifest's may be years old)."""
    events = {
        e["id"]: (e["state"], e["first_bad_run"], e["last_good_run"], e.get("confirmed_by"))
        for e in verdicts.get("events") or []
    }
    points = {
        (p["config"], p["pair"], p["concurrency"]): p["verdict"]
        for p in verdicts.get("points") or []
        if p["verdict"] != "missing"
    }
    return {"events": events, "points": points}


def _differences(wrote: Summary, again: Summary) -> list[str]:
    events = _changed("event", wrote["events"], again["events"])
    return events + _changed("point", wrote["points"], again["points"])


def _changed(what: str, a: Mapping[_Key, object], b: Mapping[_Key, object]) -> list[str]:
    keys = sorted(set(a) | set(b), key=str)
    return [f"{what} {k}: {a.get(k)} -> {b.get(k)}" for k in keys if a.get(k) != b.get(k)]


def replay_history(history: Path, policy: Policy, source: str) -> list[Replayed]:
    """Each admitted run of `history` that kept its night's verdicts, judged again."""
    out = []
    for run in history_dirs(history):
        try:
            manifest = jsonread.load(run / MANIFEST)
        except (OSError, ValueError):
            continue
        wrote = manifest.get("verdicts") if isinstance(manifest, dict) else None
        if not isinstance(wrote, dict):
            continue
        store = open_store(current=[run], name=run.name, history=history, before=run.name)
        outcomes = None
        own = run / "confirmation" / "results.json"
        if own.is_file():
            outcomes = load_outcomes(own)
        again = compare(
            store, policy, source=source, current=run.name, expected=None, outcomes=outcomes
        ).as_dict()
        found = _differences(summary(wrote), summary(again))
        out.append(Replayed(run=run.name, same=not found, differences=tuple(found)))
    return out
