"""`results admit`: write one run into a history, only when its records validate.

The history job runs it on the run's artifact. The run directory it writes, `HISTORY/NAME`
(new: an existing one is never rewritten), holds:

- the records, every one validated against the record schema, at their paths below the
  run directory (a run with a record that does not validate is refused whole, exit 2);
- `manifest.json`: the run (workflow, number, id, attempt, link), the matrices it was
  asked to run, the verdicts of `compare --json`, GitHub's job statuses, provenance
  (images with digests and versions, runners, catalog commit), the records' paths, and
  the files of the artifact that were left out (Markdown, JSON that is not a record);
- the compact file (store.COMPACT_FILE): the typed rows `report` and `compare` read
  instead of the JSON files;
- with `--confirmation DIR`, `confirmation/`: the A/B confirmation's JSON documents
  (docs/confirmation.md), each one checked to parse as JSON (other files are left out).

Every baseline rests on the history, so a record is admitted only when its image is of a
repository the catalog declares (any server mode's `image_repositories`) and pinned by
digest: a record of another image refuses the run whole (no select step lets one
through, so it was not made by this repository's workflows), and a record whose image is
not pinned (a dispatch that turned image resolution off) is left out and listed. A
record of a pull request's own image (of the catalog's `images.build.repository`, or
whose provenance says it was built for a pull request) refuses the run whole: that image
is the change under review, never a baseline.

It is built beside the history's runs (`.NAME.new-*`) and moved in when complete.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from generator.imageref.allowed import is_allowed, is_pinned
from generator.imageref.reference import ImageError
from generator.jsonio import dumps
from generator.launch import jsonread
from generator.launch.logtext import one_line
from generator.results.expected import load_expected
from generator.results.jobs import load_jobs
from generator.results.output import new_dir
from generator.results.provenance import provenance, run_info
from generator.results.record import Problem, ResultsError, latest_attempts, read_record
from generator.results.runs import MANIFEST, RunDir, check_run_name
from generator.results.store import COMPACT_FILE, CURRENT, Store
from generator.results.verdicts_json import load as load_verdicts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

MANIFEST_SCHEMA = "sglang-ci/manifest/1"
ADMIT = "results admit"


@dataclass(frozen=True, kw_only=True)
class Admitted:
    path: Path
    records: int
    left_out: tuple[str, ...]
    not_pinned: tuple[str, ...] = ()  # records left out: their image is not pinned
    again: bool = False  # the history held these very records already (a re-run's)


@dataclass(frozen=True, kw_only=True)
class Images:
    """The image repositories the catalog declares (every server mode's), with registries,
    and the one its pull requests' images are pushed to (never admitted)."""

    repositories: tuple[str, ...]
    pull_requests: tuple[str, ...] = ()


def _image_of(record: Mapping[str, Any]) -> str | None:
    image = (record.get("provenance") or {}).get("image") or {}
    text = image.get("pinned") or image.get("requested")
    return text if isinstance(text, str) and text else None


def _refuse_pull_request(
    rel: str, record: Mapping[str, Any], image: str | None, images: Images
) -> None:
    """ResultsError when the record is of a pull request's image."""
    built = ((record.get("provenance") or {}).get("image") or {}).get("build")
    try:
        of_pr = image is not None and is_allowed(image, images.pull_requests)
    except ImageError:
        of_pr = False
    if built or of_pr:
        which = f" (built for PR #{built.get('pr')})" if isinstance(built, dict) else ""
        msg = (
            f"{rel}: image '{one_line(image or '?')}' is a pull request's image{which}: the "
            "history admits none; the run is not admitted"
        )
        raise ResultsError(msg)


def _screen(
    records: Sequence[tuple[Path, str]], images: Images
) -> tuple[list[tuple[Path, str]], list[str]]:
    """The records to admit, and the paths of those left out as not pinned by digest;
    ResultsError for a record of an image outside the declared repositories."""
    kept: list[tuple[Path, str]] = []
    not_pinned: list[str] = []
    for path, rel in records:
        record, _ = read_record(path)
        image = _image_of(record or {})
        _refuse_pull_request(rel, record or {}, image, images)
        try:
            allowed = image is not None and is_allowed(image, images.repositories)
            pinned = image is not None and is_pinned(image)
        except ImageError:
            allowed = pinned = False
        if image is not None and not allowed:
            msg = (
                f"{rel}: image '{one_line(image)}' is not of a declared image repository "
                f"({', '.join(images.repositories)}): the run is not admitted"
            )
            raise ResultsError(msg)
        if pinned:
            kept.append((path, rel))
        else:
            not_pinned.append(rel)
    return kept, not_pinned


def _sort(run_dirs: Sequence[Path]) -> tuple[list[tuple[Path, str]], list[str], list[Problem]]:
    """(record file, its path in the new run) of every valid record; the other files'
    paths; the files that claim to be records and are not."""
    found: list[tuple[tuple[Path, str], dict[str, Any]]] = []
    others: list[str] = []
    problems: list[Problem] = []
    for run_dir in run_dirs:
        if not run_dir.is_dir():
            msg = f"{run_dir}: run directory is not a directory"
            raise ResultsError(msg)
        prefix = "" if len(run_dirs) == 1 else f"{run_dir.resolve().name}/"
        for top, dirs, files in os.walk(run_dir):
            dirs.sort()
            for name in sorted(files):
                path = Path(top, name)
                rel = prefix + path.relative_to(run_dir).as_posix()
                record, problem = (None, None)
                if name.endswith(".json"):
                    record, problem = read_record(path)
                if problem is not None:
                    problems.append(problem)
                elif record is not None:
                    found.append(((path, rel), record))
                else:
                    others.append(rel)
    records, superseded = latest_attempts(found)
    return records, others + [rel for _, rel in superseded], problems


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


def _admitted_before(
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


def _attachments(folder: Path | None) -> tuple[list[tuple[Path, str]], list[str]]:
    """(file, its path in the new run) of every JSON file below `folder` that parses; the
    paths of the other files."""
    if folder is None:
        return [], []
    if not folder.is_dir():
        msg = f"{folder}: confirmation directory is not a directory"
        raise ResultsError(msg)
    kept: list[tuple[Path, str]] = []
    others: list[str] = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        rel = "confirmation/" + path.relative_to(folder).as_posix()
        if path.suffix == ".json" and _parses(path):
            kept.append((path, rel))
        else:
            others.append(rel)
    return kept, others


def _parses(path: Path) -> bool:
    try:
        jsonread.load(path)
    except (OSError, ValueError):
        return False
    return True


def _matrices(paths: Sequence[Path]) -> list[Any]:
    load_expected(paths)  # refuses what is not a matrix
    return [jsonread.load(p) for p in paths]


def _job_statuses(path: Path | None) -> list[Any] | None:
    if path is None:
        return None
    reasons = load_jobs(path)
    return [{"job": job, "reason": why} for job, why in sorted(reasons.items())]


def admit(
    run_dirs: Sequence[Path],
    history: Path,
    name: str,
    *,
    expected: Sequence[Path] = (),
    verdicts: Path | None = None,
    jobs: Path | None = None,
    confirmation: Path | None = None,
    images: Images,
    environ: Mapping[str, str],
) -> Admitted:
    """Write the run made of `run_dirs` as `history/name` (see the module's text)."""
    check_run_name(name)
    if history.exists() and not history.is_dir():
        msg = f"{history}: history directory is not a directory"
        raise ResultsError(msg)
    target = history / name
    records, others, problems = _sort(run_dirs)
    attached, not_json = _attachments(confirmation)
    others += not_json
    if problems:
        msg = (
            f"{problems[0]} (the run is not admitted: {len(problems)} of "
            f"{len(problems) + len(records)} files claiming to be records do not validate)"
        )
        raise ResultsError(msg)
    records, not_pinned = _screen(records, images)
    others += not_pinned
    matrices = _matrices(expected)
    judged = load_verdicts(verdicts) if verdicts is not None else None
    statuses = _job_statuses(jobs)
    earlier = _admitted_before(history, target, records)
    if earlier is not None:
        return Admitted(path=earlier, records=len(records), left_out=(), again=True)

    def build(new: Path) -> None:
        for source, rel in [*records, *attached]:
            dest = new / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
        store = Store()
        store.add(CURRENT, [RunDir(name=name, files=tuple(str(new / rel) for _, rel in records))])
        rows = store.write_compact(new / COMPACT_FILE, new)
        start = store.rows("SELECT run_time FROM runs WHERE role = 'current'")
        manifest = {
            "schema": MANIFEST_SCHEMA,
            "name": name,
            "admitted_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "started_at": start[0]["run_time"].strftime("%Y-%m-%dT%H:%M:%SZ") if start else None,
            "run": run_info(store, environ),
            "provenance": provenance(store),
            "matrix": matrices,
            "verdicts": judged,
            "jobs": statuses,
            "records": {"count": rows, "files": [rel for _, rel in records]},
            "confirmation": [rel for _, rel in attached],
            "compact": COMPACT_FILE,
            "left_out": others,
        }
        (new / MANIFEST).write_text(dumps(manifest), encoding="utf-8")

    new_dir(target, ADMIT, build)
    return Admitted(
        path=target, records=len(records), left_out=tuple(others), not_pinned=tuple(not_pinned)
    )


def read_manifest(path: Path) -> dict[str, Any] | None:
    """An admitted run's manifest, or None when it is not one (unreadable, other JSON)."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
        return None
    return data
