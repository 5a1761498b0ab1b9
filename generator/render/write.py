"""The one place that writes generated files: all of them or none, and only its own.

A render overwrites a file its manifest (manifest.py) lists, writes a new one where nothing
is, and deletes a listed file it no longer generates only while that file still has the
listed hash; a path it did not list (a hand-written file, a file that merely says
"@generated") is never deleted, and one in the way of an output is refused (exit 2, nothing
written). Without a manifest, render's own output paths are taken as its own, once, and
nothing is deleted until a manifest lists it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from generator.errors import SglangCIError
from generator.render.manifest import MANIFEST, OWNED_DIRS, legacy, listed, sha256

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


class NotOurs(SglangCIError):
    """render would overwrite or delete a file it cannot prove it wrote (exit 2)."""

    return_code = 2


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        Path(tmp).replace(path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _plan(root: Path, outputs: Mapping[str, str]) -> tuple[dict[str, bytes], list[str]]:
    """(the files as they are, that render may replace; the stale ones it deletes), or
    NotOurs for the first file in the way."""
    found = listed(root)
    # Without a manifest, render's own output paths are taken as before (once).
    ours = legacy(root) | set(outputs) if found is None else set(found) | {MANIFEST}
    before: dict[str, bytes] = {}
    for rel in sorted(set(outputs) | ours):
        path = root / rel
        if path.is_symlink() or (path.exists() and not path.is_file()):
            if rel in outputs:
                msg = f"{rel}: is a link or not a file; render writes no generated file there"
                raise NotOurs(msg)
            continue
        if not path.exists():
            continue
        if rel not in ours:
            msg = (
                f"{rel}: exists and render's manifest ({MANIFEST}) does not list it; "
                "move it away or rename it"
            )
            raise NotOurs(msg)
        before[rel] = path.read_bytes()
    stale = sorted(rel for rel in before if rel not in outputs)
    if found is None:
        stale = []  # without a manifest, nothing is provably render's to delete
    for rel in stale:
        if found is not None and sha256(before[rel]) != found.get(rel):
            msg = (
                f"{rel}: render no longer generates it, but it changed since render wrote "
                "it; delete it yourself if it should go"
            )
            raise NotOurs(msg)
    return before, stale


def write_all(
    root: Path,
    outputs: dict[str, str],
    *,
    write: Callable[[Path, bytes], None] = _atomic_write,
) -> list[str]:
    """Replace every generated file with `outputs` and delete the stale ones render's
    manifest lists.

    On any failure the files as they were are restored, so the tree holds either
    all old files or all new ones. Returns the paths that changed.
    """
    before, stale = _plan(root, outputs)
    changed = []
    done: list[str] = []
    try:
        for rel, text in outputs.items():
            data = text.encode()
            if before.get(rel) != data:
                done.append(rel)
                write(root / rel, data)
                changed.append(rel)
        for rel in stale:
            done.append(rel)
            (root / rel).unlink()
            changed.append(rel)
    except BaseException:
        for rel in done:
            if rel in before:
                _atomic_write(root / rel, before[rel])
            else:
                (root / rel).unlink(missing_ok=True)
        raise
    for d in OWNED_DIRS:
        _prune_empty(root / d)
    return changed


def _prune_empty(base: Path) -> None:
    if not base.is_dir():
        return
    for p in sorted(base.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if p.is_dir() and not any(p.iterdir()):
            p.rmdir()
