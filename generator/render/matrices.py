"""The committed matrices: one per cron group, one per preset and server mode, one per
accuracy level. Each holds the launcher's entries (`generator.core.contract`)."""

from __future__ import annotations

from generator.expand.entries import case_entry, job_entry
from generator.expand.select import image_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import CaseEntry, JobEntry
    from generator.expand.expanded import Expanded, Run
    from generator.images.matrix import Matrix

MATRICES = ".github/matrices"


def benchmark_path(kind: str, name: str, suite_key: str = "", mode: str = "") -> str:
    if kind == "schedule":
        return f"{MATRICES}/benchmark/schedule/{name}.json"
    return f"{MATRICES}/benchmark/preset/{suite_key}/{mode}/{name}.json"


def run_matrix(expanded: Expanded, run: Run) -> Matrix[JobEntry]:
    image = image_for(expanded.catalog, run.mode, None)
    return {"include": [job_entry(expanded.catalog, j, image) for j in run.jobs]}


def level_entries(expanded: Expanded, level: str) -> list[CaseEntry]:
    return [
        case_entry(expanded.catalog, run, level)
        for run in expanded.case_runs
        if level in run.case.levels
    ]


def level_matrix(expanded: Expanded, level: str) -> Matrix[CaseEntry]:
    return {"include": level_entries(expanded, level)}


def accuracy_path(level: str) -> str:
    return f"{MATRICES}/accuracy/{level}.json"
