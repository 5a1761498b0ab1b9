"""Whether the history holds a GitHub run already: a re-run admitted again with the very
same records is nothing to do, with other records it is refused (a night counts once)."""

from __future__ import annotations

import hashlib
import json

from generator.results.manifest_doc import read_manifest
from generator.results.record import ResultsError
from generator.results.runs import MANIFEST

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

ADMIT = "results admit"


def _github_runs(records: Sequence[tuple[Path, str]]) -> set[str]:
    """The GitHub run ids the records name (one, for a run of the workflows)."""
    found: set[str] = set()
    for path, _ in records:
        data = json.loads(path.read_bytes())
        run_id = ((data.get("provenance") or {}).get("github") or {}).get("run_id")
        if run_id:
            found.add(str(run_id))
    return found


def _digests(files: Sequence[Path]) -> list[str]:
    return sorted(hashlib.sha256(f.read_bytes()).hexdigest() for f in files)


def admitted_before(
    history: Path, target: Path, records: Sequence[tuple[Path, str]]
) -> Path | None:
    """The history run that already holds this GitHub run (its name ends with the run id
    and attempt, as the workflows name it, or it is `target`): None when there is none;
    that run when it holds these very records (a re-run admitted again: nothing to do);
    ResultsError when it holds others, since a night counts once in every baseline."""
    if not history.is_dir():
        return None
    ids = _github_runs(records)
    candidates = [target] if target.is_dir() else []
    if len(ids) == 1:
        [run_id] = ids
        candidates += sorted(
            d
            for d in history.iterdir()
            if d != target and f"-{run_id}-" in d.name and not d.is_symlink() and d.is_dir()
        )
    for earlier in candidates:
        manifest = read_manifest(earlier / MANIFEST)
        if manifest is None:
            msg = f"{earlier}: already exists; {ADMIT} never rewrites a run"
            raise ResultsError(msg)
        held = str((manifest.get("run") or {}).get("id") or "")
        if earlier != target and held not in ids:
            continue
        listed = [earlier / rel for rel in (manifest.get("records") or {}).get("files") or []]
        if _digests(listed) == _digests([path for path, _ in records]):
            return earlier
        msg = (
            f"{earlier}: the history holds GitHub run {held or '?'} already, with other "
            f"records; a run is admitted once ({ADMIT} never rewrites one)"
        )
        raise ResultsError(msg)
    return None
