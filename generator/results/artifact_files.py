"""The files of a run's artifact as `results admit` sorts them: the valid records (the
newest attempt of each), the confirmation's JSON documents, and the files left out."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from generator.core import jsonread
from generator.results.record import Problem, ResultsError, latest_attempts, read_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


def sort_records(
    run_dirs: Sequence[Path],
) -> tuple[list[tuple[Path, str]], list[str], list[Problem]]:
    """(record file, its path in the new run) of every valid record; the other files'
    paths; the files that claim to be records and are not."""
    found: list[tuple[tuple[Path, str], dict[str, Any]]] = []
    others: list[str] = []
    problems: list[Problem] = []
    for run_dir in run_dirs:
        if not run_dir.is_dir():
            msg = f"{run_dir}: run directory is not a directory"
            raise ResultsError(msg)
        prefix = "" if len(run_dirs) == 1 else f"{run_dir.resolve().name}/"
        for top, dirs, files in os.walk(run_dir):
            dirs.sort()
            for name in sorted(files):
                path = Path(top, name)
                rel = prefix + path.relative_to(run_dir).as_posix()
                record, problem = (None, None)
                if name.endswith(".json"):
                    record, problem = read_record(path)
                if problem is not None:
                    problems.append(problem)
                elif record is not None:
                    found.append(((path, rel), record))
                else:
                    others.append(rel)
    records, superseded = latest_attempts(found)
    return records, others + [rel for _, rel in superseded], problems


def attachments(folder: Path | None) -> tuple[list[tuple[Path, str]], list[str]]:
    """(file, its path in the new run) of every JSON file below `folder` that parses; the
    paths of the other files."""
    if folder is None:
        return [], []
    if not folder.is_dir():
        msg = f"{folder}: confirmation directory is not a directory"
        raise ResultsError(msg)
    kept: list[tuple[Path, str]] = []
    others: list[str] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = "confirmation/" + path.relative_to(folder).as_posix()
        if path.suffix == ".json" and _parses(path):
            kept.append((path, rel))
        else:
            others.append(rel)
    return kept, others


def _parses(path: Path) -> bool:
    try:
        jsonread.load(path)
    except (OSError, ValueError):
        return False
    return True
