"""The night's A/B outcomes as the verdicts take them (`results compare --confirmation
FILE`, written by `sglang-ci confirm outcomes`): event id -> `confirmed` or `cleared`. The
replay (replay.py) applies an outcome to the finding it was run for, on the run it ran on;
the history keeps each night's file (confirmation/results.json), so a later night's replay
applies it again, and a run's verdicts never depend on what an earlier night wrote."""

from __future__ import annotations

from generator.core import jsonread
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def load_outcomes(path: Path) -> dict[str, str]:
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
