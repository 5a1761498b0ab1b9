"""The output directories of the results commands, under output.py's rule: a directory is
new, empty, or holds MARKER, the list of the files the same command wrote there."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from generator.core import jsonread
from generator.results.output import OutputRefused, identity_of, sha256_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MARKER = ".sglang-ci-output.json"
MARKER_SCHEMA = "sglang-ci/output/2"


def _files(root: Path) -> list[str]:
    """Every entry below `root` that is not a directory (symbolic links included), as
    sorted relative POSIX paths."""
    found = []
    for top, dirs, files in os.walk(root):
        found += [Path(top, name).relative_to(root).as_posix() for name in files]
        found += [
            Path(top, name).relative_to(root).as_posix()
            for name in dirs
            if Path(top, name).is_symlink()
        ]
    return sorted(found)


def _listed(target: Path, what: str) -> dict[str, str] | None:
    """The files (with their SHA-256) that MARKER in `target` lists, when `what` wrote it
    for this very directory (its device and inode); None otherwise."""
    try:
        data = jsonread.load(target / MARKER)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    files = data.get("files")
    if (
        data.get("schema") != MARKER_SCHEMA
        or data.get("written_by") != what
        or data.get("directory") != identity_of(target)
        or not isinstance(files, dict)
    ):
        return None
    return {str(k): str(v) for k, v in files.items()}


def check_dir(target: Path, what: str) -> None:
    """Refuse `target` as the output directory of `what` unless it is new, empty, or
    holds only the files `what` wrote there before, unchanged (its MARKER)."""
    if (target.exists() and not target.is_dir()) or target.is_symlink():
        msg = f"{target}: is not a directory {what} made"
        raise OutputRefused(msg)
    if not target.exists() or not any(target.iterdir()):
        return
    listed = _listed(target, what)
    if listed is None:
        msg = (
            f"{target}: is not empty and {what} cannot prove it made it (no {MARKER} of its "
            "own for this directory); choose a new directory"
        )
        raise OutputRefused(msg)
    foreign = [
        f
        for f in _files(target)
        if f != MARKER and (f not in listed or sha256_of(target / f) != listed[f])
    ]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        msg = (
            f"{target}: holds {foreign[0]}{more}, which {what} did not write as it is now; "
            "move it away or choose a new directory"
        )
        raise OutputRefused(msg)


def replace_dir(target: Path, what: str, build: Callable[[Path], None]) -> None:
    """Build the content of `target` with `build(directory)` in a new directory beside
    it, then swap it in; the old content (only files `what` wrote) goes last."""
    check_dir(target, what)
    parent = target.absolute().parent
    parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(dir=parent, prefix=f".{target.name}.new-"))
    try:
        build(new)
        files = {f: sha256_of(new / f) for f in _files(new) if f != MARKER}
        marker = {
            "schema": MARKER_SCHEMA,
            "written_by": what,
            "directory": identity_of(new),  # the same once renamed into place
            "files": files,
        }
        (new / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
        _swap(new, target)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise


def _swap(new: Path, target: Path) -> None:
    if not target.exists():
        new.rename(target)
        return
    old = Path(tempfile.mkdtemp(dir=new.parent, prefix=f".{target.name}.old-"))
    old.rmdir()
    target.rename(old)
    try:
        new.rename(target)
    except BaseException:
        old.rename(target)
        raise
    # `old` holds only what check_dir found listed in its marker (or nothing).
    shutil.rmtree(old)


def new_dir(target: Path, what: str, build: Callable[[Path], None]) -> None:
    """Build a directory that must not exist yet beside where it goes, then move it in."""
    if target.exists() or target.is_symlink():
        msg = f"{target}: already exists; {what} never rewrites it"
        raise OutputRefused(msg)
    target.parent.mkdir(parents=True, exist_ok=True)
    new = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.new-"))
    try:
        build(new)
        new.rename(target)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
