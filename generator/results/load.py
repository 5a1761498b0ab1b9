"""Runs into a Store: the run being judged is validated file by file against the JSON
Schema; history runs are read by DuckDB directly.

History runs were validated when they were the current run of their own summary job, and
a year of them is ~157,000 files: jsonschema at ~0.5 ms a record would take over a minute,
where DuckDB types them all in seconds. A history file that is not JSON, or a record
without its identity, validity or start time, is still reported and skipped (store.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from generator.results.record import Problem, read_record
from generator.results.runs import RunDir, history_runs, run_dir
from generator.results.store import CURRENT, HISTORY, Store


def checked(run: RunDir) -> tuple[RunDir, list[Problem]]:
    """`run` with only its valid records, and the files that are broken records."""
    good: list[str] = []
    problems: list[Problem] = []
    for name in run.files:
        record, problem = read_record(Path(name))
        if record is not None:
            good.append(name)
        elif problem is not None:
            problems.append(problem)
    return RunDir(name=run.name, files=tuple(good)), problems


def open_store(
    *, current: Sequence[Path] = (), history: Path | None = None, newest: int | None = None
) -> Store:
    """A Store with the runs of `history` (only the `newest` runs, when given) and the run
    made of the `current` directories."""
    store = Store()
    name = None
    if current:
        run, problems = checked(run_dir(current))
        store.problems.extend(problems)
        store.add(CURRENT, [run])
        name = run.name
    if history is not None:
        store.add(HISTORY, history_runs(history, exclude=name, newest=newest))
    return store
