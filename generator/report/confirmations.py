"""The A/B confirmations and tracking issues admitted with the runs (each run's
`confirmation/` folder, docs/confirmation.md), as the regressions page shows them, with
the triage marks people left on the tracking issues (`triage.json`).

An A/B is judged again from its documents and the run's confirmation matrix, with the
function the events job judged it with (generator/confirm/outcomes.py): the same
documents always give the same verdict. An event's tracking issue comes from the newest
run whose `issues.json` (`sglang-ci confirm issues --out`) names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.confirm import outcomes, tracked, triage
from generator.core import jsonread
from generator.core.abjob import ConfirmationEntry, check_confirmation
from generator.core.exits import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from generator.confirm.outcome import Outcome
    from generator.confirm.tracked import Tracked
    from generator.confirm.triage import Mark
    from generator.core.contract import PointEntry

FOLDER = "confirmation"
MATRIX = "matrix.json"


@dataclass(frozen=True, kw_only=True)
class Confirmations:
    """Per event id: its A/B outcome, its points' labels, its tracking issue."""

    outcomes: dict[str, Outcome] = field(default_factory=dict)
    points: dict[str, dict[str, str]] = field(default_factory=dict)  # point id -> label
    issues: dict[str, tuple[str, Tracked]] = field(default_factory=dict)  # (run, issue)
    marks: dict[str, Mark] = field(default_factory=dict)  # the standing triage mark
    problems: list[str] = field(default_factory=list)


def _json(path: Path) -> object:
    try:
        return jsonread.load(path)
    except (OSError, ValueError):
        return None


def _entries(folder: Path, problems: list[str]) -> list[ConfirmationEntry]:
    data = _json(folder / MATRIX)
    found = data.get("include") if isinstance(data, dict) else None
    out = []
    for i, entry in enumerate(found if isinstance(found, list) else ()):
        try:
            out.append(check_confirmation(entry, f"{folder / MATRIX}: include[{i}]"))
        except InputError as exc:
            problems.append(f"{exc}: its A/B is not shown")
    return out


def _label(point: PointEntry) -> str:
    return f"{point.get('isl')}x{point.get('osl')} c={point.get('concurrency')}"


def read(runs: Iterable[Path]) -> Confirmations:
    """What the run directories `runs` (oldest first) hold in their confirmation folder;
    a newer run's outcome or issue of an event replaces an older one's."""
    found = Confirmations()
    for run in runs:
        folder = run / FOLDER
        if not folder.is_dir():
            continue
        entries = _entries(folder, found.problems)
        for outcome in outcomes.collect(entries, folder):
            found.outcomes[outcome.event] = outcome
        for entry in entries:
            found.points[entry["confirmation"]["event"]] = {
                str(p["id"]): _label(p) for p in entry["points"]
            }
        for issue in tracked.read(_json(folder / tracked.FILE)):
            found.issues[issue.event] = (run.name, issue)
        marks = [*found.marks.values(), *triage.read(_json(folder / triage.FILE))]
        found.marks.update(triage.newest(marks))
    return found
