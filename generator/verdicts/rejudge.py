"""`results replay`: every admitted run of a history judged again from scratch, against the
runs admitted before it (names sort as the runs started), with its own night's A/B
outcome, and compared with the verdicts its night wrote: a run's verdicts are a function
of the history's data, so the two agree. What is compared: each event's id, state, first
bad and last good run and what confirmed it, and each measured point's verdict (missing
data is the night's matrix's, not the history's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.core import jsonread
from generator.results.load import open_store
from generator.results.runs import MANIFEST, history_dirs
from generator.verdicts.ab import load_outcomes
from generator.verdicts.compare import compare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.catalog.regression import Policy


@dataclass(frozen=True, kw_only=True)
class Replayed:
    run: str
    same: bool
    differences: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"run": self.run, "same": self.same, "differences": list(self.differences)}


def summary(verdicts: Any) -> dict[str, Any]:  # noqa: ANN401 (a verdicts document)
    """What must agree: each event's identity and fate, each measured point's verdict."""
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


def _differences(wrote: dict[str, Any], again: dict[str, Any]) -> list[str]:
    out = []
    for what in ("events", "points"):
        a, b = wrote[what], again[what]
        out += [
            f"{what[:-1]} {k}: {a.get(k)} -> {b.get(k)}"
            for k in sorted(set(a) | set(b), key=str)
            if a.get(k) != b.get(k)
        ]
    return out


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
