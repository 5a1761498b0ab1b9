"""Shared test helpers: a copy of the repository's catalogs and templates to edit."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GENERATED = (".github", "docs")


def copy_repo(dest: Path, *, generated: bool = True) -> Path:
    """Catalogs (and, when asked, the committed generated files) copied under `dest`."""
    shutil.copytree(ROOT / "catalogs", dest / "catalogs")
    if generated:
        shutil.copytree(ROOT / ".github", dest / ".github")
        shutil.copytree(ROOT / "docs", dest / "docs")
    return dest


def edit(path: Path, old: str, new: str, count: int = 1) -> int:
    """Replace `old` with `new` (it must be there); return the 1-based line of the edit."""
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, count))
    return line


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under the generated directories, byte for byte."""
    out = {}
    for d in GENERATED:
        base = root / d
        if base.is_dir():
            for p in sorted(base.rglob("*")):
                if p.is_file():
                    out[p.relative_to(root).as_posix()] = p.read_bytes()
    return out
