"""The one place that writes generated files: all of them or none."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

GENERATED_MARK = "@generated"
OWNED_DIRS = (".github/matrices",)
MARKED_GLOBS = (
    ".github/workflows/*.yml",
    ".github/workflows/*.yaml",
    ".github/actionlint.yaml",
    "docs/coverage.md",
    "docs/runners.md",
    "docs/recipes/*.md",
)


def owned_files(root: Path) -> set[str]:
    """Generated files now on disk: everything under the owned dirs, and marked files."""
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


def write_all(
    root: Path,
    outputs: dict[str, str],
    *,
    write: Callable[[Path, bytes], None] = _atomic_write,
) -> list[str]:
    """Replace every generated file with `outputs` and delete stale ones.

    On any failure the files as they were are restored, so the tree holds either
    all old files or all new ones. Returns the paths that changed.
    """
    before = {rel: (root / rel).read_bytes() for rel in owned_files(root)}
    for rel in outputs:
        if rel not in before and (root / rel).is_file():
            before[rel] = (root / rel).read_bytes()
    changed = []
    done: list[str] = []
    try:
        for rel, text in outputs.items():
            data = text.encode()
            if before.get(rel) != data:
                done.append(rel)
                write(root / rel, data)
                changed.append(rel)
        for rel in sorted(set(before) - set(outputs)):
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
