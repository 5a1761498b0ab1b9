"""Run directories on disk: the JSON files of one run, the runs of a history.

A run directory holds everything one workflow run produced, possibly merged from many
jobs, so its files may sit in subdirectories. A history directory holds one run directory
per past run; entries whose name starts with `.` (a `.git` of a checkout, a run being
admitted) are skipped. A symbolic link is never followed, to a run directory or a file:
a history is what was admitted into it, never what a link points at.

A run admitted by `results admit` also holds MANIFEST (the matrix, the verdicts,
provenance) and a compact file (`records-<version>.parquet`, store.COMPACT_FILE); the
JSON files of such a run are listed only when its compact file cannot be read. At the top
of a run directory, MANIFEST and RESERVED are never records: earlier versions wrote the
Markdown of `results compare` to `verdicts.json` there.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from generator.core import jsonread
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


# A record is a few kilobytes; a larger JSON file (an evaluator's samples) is not read.
MAX_RECORD_BYTES = 4 * 1024 * 1024
MANIFEST = "manifest.json"
MANIFEST_SCHEMA = "sglang-ci/manifest/1"
RESERVED = frozenset({MANIFEST, "verdicts.json", "expected.json", "jobs.json"})
COMPACT_GLOB = "records-*.parquet"


# A run's name in the history: one directory name (admit refuses any other).
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")


def check_run_name(name: str) -> str:
    """`name` when it can name a history run; ResultsError (one line, exit 2) otherwise."""
    if not RUN_NAME.fullmatch(name):
        msg = f"{name!r}: a run name is letters, digits, '.', '_' and '-' (at most 200)"
        raise ResultsError(msg)
    return name


@dataclass(frozen=True, kw_only=True)
class RunDir:
    """One run: its name (the run's directory name) and its JSON files; for an admitted
    history run, its directory, compact file and manifest instead of a listing."""

    name: str
    files: tuple[str, ...]
    path: str | None = None
    compact: str | None = None
    manifest: str | None = None


def json_files(root: Path) -> tuple[str, ...]:
    """Every `*.json` file below `root` of at most MAX_RECORD_BYTES, in sorted order (but
    RESERVED names at the top)."""
    found: list[str] = []
    for top, dirs, _ in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        with os.scandir(top) as entries:
            found += [
                entry.path
                for entry in entries
                if entry.name.endswith(".json")
                and not (top == str(root) and entry.name in RESERVED)
                and entry.is_file(follow_symlinks=False)
                and entry.stat(follow_symlinks=False).st_size <= MAX_RECORD_BYTES
            ]
    return tuple(sorted(found))


def _directory(path: Path, what: str) -> Path:
    if not path.is_dir():
        msg = f"{path}: {what} is not a directory"
        raise ResultsError(msg)
    return path


def run_dir(paths: Sequence[Path], name: str | None = None) -> RunDir:
    """One run from one or more directories (a run's jobs may be downloaded apart), named
    `name` (the run's name in the history), else by its one directory."""
    files: list[str] = []
    for path in paths:
        files.extend(json_files(_directory(path, "run directory")))
    return RunDir(name=name_of(paths, name), files=tuple(files))


def name_of(paths: Sequence[Path], name: str | None = None) -> str:
    """The name of the run made of `paths`: `name` (the history's name of it), else its
    one directory's name."""
    if name is None:
        name = paths[0].resolve().name if len(paths) == 1 else "current"
    return check_run_name(name)


def started(run: Path) -> datetime | None:
    """When the first record found in `run` (in sorted order) started: a cheap estimate of
    the run's time, to pick the newest runs before reading them."""
    for top, dirs, files in os.walk(run):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(f for f in files if f.endswith(".json")):
            try:
                data = jsonread.load(Path(top, name))
                at = datetime.fromisoformat(data["timings"]["started_at"])
                return at if at.tzinfo else at.replace(tzinfo=UTC)
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                continue
    return None


def history_run(path: Path, *, use_compact: bool = True) -> RunDir:
    """One run of a history: from its compact file when it was admitted (and
    `use_compact`), else its files."""
    manifest = path / MANIFEST
    compact = (
        sorted(c for c in path.glob(COMPACT_GLOB) if not c.is_symlink()) if use_compact else []
    )
    if manifest.is_symlink():
        manifest = path / ".not-a-manifest"  # a link is never read
    if manifest.is_file() and compact:
        return RunDir(
            name=path.name,
            files=(),
            path=str(path),
            compact=str(compact[-1]),
            manifest=str(manifest),
        )
    return RunDir(
        name=path.name,
        files=json_files(path),
        path=str(path),
        manifest=str(manifest) if manifest.is_file() else None,
    )


def history_dirs(history: Path, exclude: str | None = None) -> list[Path]:
    """The run directories of a history directory, but `exclude`: a run that is being
    compared is never its own baseline."""
    _directory(history, "history directory")
    return [
        Path(entry.path)
        for entry in sorted(os.scandir(history), key=lambda e: e.name)
        if entry.is_dir(follow_symlinks=False)
        and not entry.name.startswith(".")
        and entry.name != exclude
    ]
