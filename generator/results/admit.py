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

import shutil
from dataclasses import dataclass
from datetime import UTC, datetime

from generator.core import jsonread
from generator.jsonio import dumps
from generator.results.admit_images import Images, screen
from generator.results.artifact_files import attachments, sort_records
from generator.results.expected import load_expected
from generator.results.jobs import load_jobs
from generator.results.output_dirs import new_dir
from generator.results.provenance import provenance, run_info
from generator.results.readmission import ADMIT, admitted_before
from generator.results.record import ResultsError
from generator.results.runs import MANIFEST, MANIFEST_SCHEMA, RunDir, check_run_name
from generator.results.store import COMPACT_FILE, CURRENT, Store
from generator.results.verdicts_json import load as load_verdicts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from generator.results.manifest_doc import JobStatus, ManifestDoc


@dataclass(frozen=True, kw_only=True)
class Admitted:
    path: Path
    records: int
    left_out: tuple[str, ...]
    not_pinned: tuple[str, ...] = ()  # records left out: their image is not pinned
    again: bool = False  # the history held these very records already (a re-run's)


def _matrices(paths: Sequence[Path]) -> list[object]:
    load_expected(paths)  # refuses what is not a matrix
    return [jsonread.load(p) for p in paths]


def _job_statuses(path: Path | None) -> list[JobStatus] | None:
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
    records, others, problems = sort_records(run_dirs)
    attached, not_json = attachments(confirmation)
    others += not_json
    if problems:
        msg = (
            f"{problems[0]} (the run is not admitted: {len(problems)} of "
            f"{len(problems) + len(records)} files claiming to be records do not validate)"
        )
        raise ResultsError(msg)
    records, not_pinned = screen(records, images)
    others += not_pinned
    matrices = _matrices(expected)
    judged = load_verdicts(verdicts) if verdicts is not None else None
    statuses = _job_statuses(jobs)
    earlier = admitted_before(history, target, records)
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
        manifest: ManifestDoc = {
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
