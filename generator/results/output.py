"""Where the results commands write, and the one rule they all follow: a command writes
only into a new file or directory, or into one whose ownership marker it wrote itself and
can prove; it builds the new content beside the old, swaps it in, and never deletes a
file it did not write. Anything else is refused with one line (exit 2) before a byte is
written. What a file holds (a `schema` of ours, a Markdown mark) proves nothing: a record
or a manifest looks like ours too.

- A file (`--out FILE`): JSON ends in `.json`, Markdown in `.md`. Next to it the command
  writes its ownership marker, `.FILE.sglang-ci-owner.json`: the command, the SHA-256 of
  the file as written and the file's device and inode. An existing file is replaced only
  when its marker names the same command and the file is still that file with that
  content (a copy, an artifact or a checkout has another inode, so a marker that came
  with one proves nothing).
- A directory (`report --out SITE`, output_dirs.py): new, empty, or one that holds
  MARKER, written by the same command: the list of the files it wrote there with their
  SHA-256, and the directory's own device and inode. A file is deleted only when listed
  with the hash it still has; anything else in the directory makes the command refuse.
- A new directory (`admit`, output_dirs.py): it must not exist yet.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path

from generator.core import jsonread
from generator.results.record import ResultsError

OWNER_SCHEMA = "sglang-ci/owner/1"
OWNER_SUFFIX = ".sglang-ci-owner.json"
MARKDOWN_MARK = "<!-- written by sglang-ci results -->"
JSON = "json"
MARKDOWN = "markdown"
_SUFFIX = {JSON: ".json", MARKDOWN: ".md"}


class OutputRefused(ResultsError):
    """A command would write where it may not (exit 2)."""


def owner_marker(path: Path) -> Path:
    """Where the ownership marker of the output file `path` lives."""
    return path.with_name(f".{path.name}{OWNER_SUFFIX}")


def sha256_of(path: Path) -> str | None:
    """The SHA-256 of the regular file `path` (never through a link), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        digest = hashlib.sha256()
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def identity_of(path: Path) -> list[int] | None:
    try:
        info = path.lstat()
    except OSError:
        return None
    return [info.st_dev, info.st_ino]


def proven(path: Path, what: str) -> bool:
    """Whether `what` wrote the file `path` as it is now: its marker names `what`, and the
    file has the device, inode and SHA-256 the marker holds."""
    try:
        marker = jsonread.load(owner_marker(path), 4096)
    except (OSError, ValueError):
        return False
    return (
        isinstance(marker, dict)
        and marker.get("schema") == OWNER_SCHEMA
        and marker.get("written_by") == what
        and marker.get("file") == path.name
        and marker.get("identity") == identity_of(path)
        and marker.get("sha256") == sha256_of(path)
    )


def check_file(path: Path, kind: str, what: str) -> None:
    """Refuse `path` as an output of `kind` (JSON or MARKDOWN) of the command `what`
    unless it is new or that command's own (`proven`)."""
    suffix = _SUFFIX[kind]
    if path.suffix != suffix:
        shown = "JSON" if kind == JSON else "Markdown"
        msg = f"{path}: a {shown} output is written to a {suffix} file"
        raise OutputRefused(msg)
    if path.is_dir():
        msg = f"{path}: is a directory, not a file"
        raise OutputRefused(msg)
    if (path.exists() or path.is_symlink()) and not proven(path, what):
        msg = (
            f"{path}: exists and {what} cannot prove it wrote it (no ownership marker "
            f"{owner_marker(path).name} matching it); not replaced"
        )
        raise OutputRefused(msg)


def _atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_file(path: Path, text: str, kind: str, what: str) -> None:
    """Write `text` to `path` (checked by check_file), atomically: a reader sees the old
    file or the new one, never half of one; then its ownership marker."""
    check_file(path, kind, what)
    if kind == MARKDOWN:
        text = f"{MARKDOWN_MARK}\n{text}"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    _atomic(path, data)
    marker = {
        "schema": OWNER_SCHEMA,
        "written_by": what,
        "file": path.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "identity": identity_of(path),
    }
    _atomic(owner_marker(path), (json.dumps(marker) + "\n").encode())
