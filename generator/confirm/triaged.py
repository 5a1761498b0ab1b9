"""The triage marks a history holds (generator/confirm/triage.py): each admitted run's
`confirmation/triage.json`, read for `results compare` (an event marked invalid never
fails a run), the dashboard and `results events`."""

from __future__ import annotations

from pathlib import Path

from generator.confirm import triage
from generator.core import jsonread
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from generator.confirm.triage import Mark


def in_runs(manifests: Mapping[str, str]) -> list[Mark]:
    """The marks kept with the runs whose manifests are at `manifests` (run -> path); a
    triage file that does not read is no mark (it was checked to be JSON on admission)."""
    out: list[Mark] = []
    for path in manifests.values():
        found = Path(path).parent / "confirmation" / triage.FILE
        try:
            out += triage.read(jsonread.load(found))
        except (OSError, ValueError):
            continue
    return out


def load(path: Path) -> list[Mark]:
    """`--triage FILE`: the run's own marks (exit 2 unless it is a triage document)."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as exc:
        msg = f"{path}: cannot read the triage marks: {exc}"
        raise ResultsError(msg) from exc
    if not isinstance(data, dict) or data.get("schema") != triage.SCHEMA:
        msg = f"{path}: not a triage document ({triage.SCHEMA})"
        raise ResultsError(msg)
    return triage.read(data)


def invalid(marks: Iterable[Mark]) -> frozenset[str]:
    """The events whose standing mark is `invalid`."""
    return frozenset(e for e, m in triage.newest(marks).items() if m.state == "invalid")
