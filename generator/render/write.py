"""The one place that writes generated files: all of them or none, and only its own.

`render` lists what it wrote in its manifest (MANIFEST, itself a generated file): every
path with the SHA-256 of its content. A later render overwrites a listed file, writes a
new one where nothing is, and deletes a listed file it no longer generates only while that
file still has the listed hash; a path it did not list (a hand-written file, a file that
merely says "@generated") is never deleted, and one in the way of an output is refused
(exit 2, nothing written). Only paths in the generated areas count from a manifest, so a
manifest edited by hand cannot name `generator/` or the catalogs.

A checkout without a manifest (written before it existed) has its generated files
recognised as before, once: render's own output paths, the files under OWNED_DIRS or
carrying GENERATED_MARK near their top may be overwritten, and nothing is deleted until a
manifest lists it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import tempfile
from pathlib import Path, PurePosixPath

from generator.errors import SglangCIError
from generator.launch import jsonread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

GENERATED_MARK = "@generated"
MANIFEST = ".github/sglang-ci-generated.json"
MANIFEST_SCHEMA = "sglang-ci/generated/1"
WRITTEN_BY = "sglang-ci render"
OWNED_DIRS = (".github/matrices",)
MARKED_GLOBS = (
    ".github/workflows/*.yml",
    ".github/workflows/*.yaml",
    ".github/actionlint.yaml",
    "docs/coverage.md",
    "docs/runners.md",
    "docs/recipes/*.md",
    "docs/launchers.md",
    "docs/lint.md",
)


class NotOurs(SglangCIError):
    """render would overwrite or delete a file it cannot prove it wrote (exit 2)."""

    return_code = 2


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _in_area(rel: str) -> bool:
    path = PurePosixPath(rel)
    if path.is_absolute() or ".." in path.parts or rel != path.as_posix():
        return False
    if any(rel.startswith(d + "/") for d in OWNED_DIRS):
        return True
    return any(fnmatch.fnmatchcase(rel, g) and "/" not in rel[len(g.rsplit("/", 1)[0]) + 1 :]
               for g in MARKED_GLOBS)  # fmt: skip


def with_manifest(outputs: Mapping[str, str]) -> dict[str, str]:
    """`outputs` and the manifest that lists them."""
    files = {rel: _sha256(text.encode()) for rel, text in sorted(outputs.items())}
    manifest = {"schema": MANIFEST_SCHEMA, "written_by": WRITTEN_BY, "files": files}
    return {**outputs, MANIFEST: json.dumps(manifest, indent=2) + "\n"}


def listed(root: Path) -> dict[str, str] | None:
    """The files render's manifest under `root` lists (path -> SHA-256), only those in
    the generated areas; None without a readable manifest of render's."""
    try:
        data = jsonread.load(root / MANIFEST)
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("schema") != MANIFEST_SCHEMA
        or data.get("written_by") != WRITTEN_BY
        or not isinstance(files, dict)
    ):
        return None
    return {str(k): str(v) for k, v in files.items() if _in_area(str(k))}


def _legacy(root: Path) -> set[str]:
    """Generated files of a checkout without a manifest: under the owned dirs, or marked."""
    found: set[str] = set()
    for d in OWNED_DIRS:
        base = root / d
        if base.is_dir():
            found |= {p.relative_to(root).as_posix() for p in base.rglob("*") if p.is_file()}
    for pattern in MARKED_GLOBS:
        for p in root.glob(pattern):
            if p.is_file() and GENERATED_MARK in p.read_text(errors="replace")[:400]:
                found.add(p.relative_to(root).as_posix())
    return found


def _regular(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


def owned_files(root: Path) -> set[str]:
    """Generated files now on disk: those render's manifest lists (or, without one, the
    legacy rule's)."""
    found = listed(root)
    names = _legacy(root) if found is None else set(found)
    return {rel for rel in names if _regular(root / rel)}


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
    ours = _legacy(root) | set(outputs) if found is None else set(found) | {MANIFEST}
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
        if found is not None and _sha256(before[rel]) != found.get(rel):
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
