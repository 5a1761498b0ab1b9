"""What render may take as its own: its manifest (MANIFEST, itself a generated file) lists
every path it wrote with the SHA-256 of its content. Only paths in the generated areas count
from a manifest, so a manifest edited by hand cannot name `generator/` or the catalogs.

A checkout without a manifest (written before it existed) has its generated files
recognised as before, once: the files under OWNED_DIRS or carrying GENERATED_MARK near
their top (write.py adds render's own output paths).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from pathlib import PurePosixPath

from generator.core import jsonread

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

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


def sha256(data: bytes) -> str:
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
    files = {rel: sha256(text.encode()) for rel, text in sorted(outputs.items())}
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


def legacy(root: Path) -> set[str]:
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
    names = legacy(root) if found is None else set(found)
    return {rel for rel in names if _regular(root / rel)}
