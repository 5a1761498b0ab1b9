"""The drift check: the committed generated files against a fresh render."""

from __future__ import annotations

import difflib

from generator.render.manifest import owned_files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

FIX = "make workflows"


def drift(root: Path, outputs: dict[str, str]) -> list[str]:
    """Unified diffs (one per file) of what differs; empty when nothing does."""
    diffs = []
    on_disk = owned_files(root)
    for rel in sorted(set(outputs) | on_disk):
        path = root / rel
        old = path.read_text(errors="replace") if path.is_file() else None
        new = outputs.get(rel)
        if old == new:
            continue
        if new is None:
            diffs.append(f"stale: {rel} is no longer generated (delete it)\n")
            continue
        if old is None:
            diffs.append(f"missing: {rel} is not committed\n")
            continue
        lines = difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{rel} (committed)",
            tofile=f"b/{rel} (catalog)",
        )
        diffs.append("".join(lines))
    return diffs
