"""Where the results commands write, and the one rule they all follow: a command writes
only into a new file or directory, or into one it wrote itself before; it builds the new
content beside the old, swaps it in, and never deletes a file it did not write. Anything
else is refused with one line (exit 2) before a byte is written.

- A file (`--out FILE`): JSON ends in `.json`, Markdown in `.md`. An existing file is
  replaced only when it is one of ours: JSON whose `schema` starts with `sglang-ci/`, or
  Markdown whose first line is MARKDOWN_MARK.
- A directory (`report --out SITE`): new, empty, or one that holds MARKER, the list of
  the files the command wrote there; a file it does not list is never deleted (the
  command refuses instead).
- A new directory (`admit`): it must not exist yet.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from generator.launch import jsonread
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

MARKER = ".sglang-ci-output.json"
MARKER_SCHEMA = "sglang-ci/output/1"
MARKDOWN_MARK = "<!-- written by sglang-ci results -->"
JSON = "json"
MARKDOWN = "markdown"
_SUFFIX = {JSON: ".json", MARKDOWN: ".md"}


class OutputRefused(ResultsError):
    """A command would write where it may not (exit 2)."""


def ours_by_schema(data: object) -> bool:
    """JSON sglang-ci wrote: an object whose `schema` starts with `sglang-ci/`."""
    return isinstance(data, dict) and str(data.get("schema", "")).startswith("sglang-ci/")


def _ours(path: Path, kind: str, ours: Callable[[Any], bool]) -> bool:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if kind == MARKDOWN:
        return text.startswith(MARKDOWN_MARK + "\n")
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return ours(data)


def check_file(path: Path, kind: str, ours: Callable[[Any], bool] = ours_by_schema) -> None:
    """Refuse `path` as an output of `kind` (JSON or MARKDOWN) unless it may be written
    (`ours`: whether existing JSON is what this output writes)."""
    suffix = _SUFFIX[kind]
    if path.suffix != suffix:
        what = "JSON" if kind == JSON else "Markdown"
        msg = f"{path}: a {what} output is written to a {suffix} file"
        raise OutputRefused(msg)
    if path.is_dir():
        msg = f"{path}: is a directory, not a file"
        raise OutputRefused(msg)
    if path.exists() and not _ours(path, kind, ours):
        msg = f"{path}: exists and was not written by sglang-ci; not replaced"
        raise OutputRefused(msg)


def write_file(
    path: Path, text: str, kind: str, ours: Callable[[Any], bool] = ours_by_schema
) -> None:
    """Write `text` to `path` (checked by check_file), atomically: a reader sees the old
    file or the new one, never half of one."""
    check_file(path, kind, ours)
    if kind == MARKDOWN:
        text = f"{MARKDOWN_MARK}\n{text}"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def _listed(target: Path) -> set[str] | None:
    """The files MARKER in `target` lists, or None when there is no readable marker."""
    try:
        data = jsonread.load(target / MARKER)
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    if data.get("schema") != MARKER_SCHEMA or not isinstance(files, list):
        return None
    return {str(f) for f in files}


def check_dir(target: Path, what: str) -> None:
    """Refuse `target` as the output directory of `what` unless it is new, empty, or
    holds only the files `what` wrote there before (its MARKER)."""
    if (target.exists() and not target.is_dir()) or target.is_symlink():
        msg = f"{target}: is not a directory {what} made"
        raise OutputRefused(msg)
    if not target.exists() or not any(target.iterdir()):
        return
    listed = _listed(target)
    if listed is None:
        msg = (
            f"{target}: is not empty and was not made by {what} (no {MARKER}); "
            "choose a new directory"
        )
        raise OutputRefused(msg)
    foreign = [f for f in _files(target) if f != MARKER and f not in listed]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        msg = (
            f"{target}: holds {foreign[0]}{more}, which {what} did not write; "
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
        files = [f for f in _files(new) if f != MARKER]
        marker = {"schema": MARKER_SCHEMA, "written_by": what, "files": files}
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
