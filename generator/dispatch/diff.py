"""What a change to the repository changes on the GPUs: `sglang-ci diff BASE_REF`.

The base side is the matrices committed at the merge base of BASE_REF and HEAD (the
drift check kept them equal to that commit's catalogs and generator); the head side is
what the working tree's catalogs and generator render now. So a change to a catalog and
a change to the generator that alters a launch both show. An accuracy case runs again
when its server, evaluator, gate, runner or image changed, or it is new; a benchmark job
when its server, client, points, runner or image changed, or it is new. A change to the
launcher, the scripts or the workflow templates runs the PR-level cases: they test every
path. A change to the PR image's build (`images.build.paths`: its Dockerfile and what it
reads) runs the PR-level cases that run on that image (`build_entries`). A change to
nothing of this (docs, say) runs nothing. The PR GPU workflow runs exactly this list
(docs/security.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TypedDict

from generator.catalog.catalog_types import LEVELS, PR
from generator.errors import SglangCIError
from generator.git import output, show
from generator.imageref.allowed import is_allowed
from generator.render.matrices import MATRICES, level_entries, run_matrix

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from generator.catalog.server_types import ImageBuild
    from generator.core.contract import CaseEntry, JobEntry, ServerEntry
    from generator.expand.expanded import Expanded
    from generator.images.matrix import EntryT

# Paths whose change reaches every GPU job: the launcher and what starts it.
LAUNCHER_PATHS = ("generator/launch/", "scripts/", "templates/")
# What a GPU job of a pull request runs from the PR's head (its `code/` checkout): the
# launcher and everything it imports or reads, the scripts, the templates, the catalogs and
# the install's own files. The reviewer sees every file of these that differs from the
# default branch, whatever the PR's own diff says.
EXECUTED_PATHS = (
    "generator/",
    "scripts/",
    "templates/",
    "catalogs/",
    ".github/",
    "pyproject.toml",
    "requirements",
    "Makefile",
)
CASE_KEYS = (
    "model_path",
    "server_args",
    "env",
    "image",
    "evaluator",
    "threshold",
    "min_acceptance_rate",
    "runner",
)
JOB_KEYS = ("model_path", "server_args", "env", "image", "client", "runner", "points")


class DiffError(SglangCIError):
    """The base cannot be read (exit 2)."""


class ChangesJson(TypedDict):
    """`sglang-ci diff --json`: the changed files, and each case and job to run, with why."""

    base: str
    files: list[str]
    cases: list[dict[str, str]]
    jobs: list[dict[str, str]]
    built: list[str]


@dataclass(frozen=True, kw_only=True)
class Changes:
    base: str
    files: tuple[str, ...]
    cases: tuple[tuple[str, str], ...]  # (case run id, why)
    jobs: tuple[tuple[str, str], ...]  # (job key, why)
    case_entries: tuple[CaseEntry, ...] = field(default=())  # the cases, as entries
    job_entries: tuple[JobEntry, ...] = field(default=())  # the jobs, as entries
    built: tuple[str, ...] = field(default=())  # changed files of the PR image's build

    def as_json(self) -> ChangesJson:
        return {
            "base": self.base,
            "files": list(self.files),
            "cases": [{"id": i, "why": w} for i, w in self.cases],
            "jobs": [{"id": i, "why": w} for i, w in self.jobs],
            "built": list(self.built),
        }


def _job_key(entry: JobEntry) -> str:
    """A job's id, with its server mode when the suite has several."""
    return f"{entry['id']} ({entry['server_mode']})"


def _add_cases(out: dict[str, CaseEntry], level: str, entries: list[CaseEntry]) -> None:
    """A case's entry from the PR level when it has one (its shorter timeout)."""
    for entry in entries:
        if level == PR or entry["id"] not in out:
            out[entry["id"]] = entry


def _base(root: Path, ref: str) -> tuple[dict[str, CaseEntry], dict[str, JobEntry]] | None:
    """The cases and jobs of the matrices committed at `ref`; None when it has none."""
    listed = output(root, "ls-tree", "-r", "--name-only", ref, "--", MATRICES).split()
    if not listed:
        return None
    cases: dict[str, CaseEntry] = {}
    jobs: dict[str, JobEntry] = {}
    for rel in sorted(listed, key=lambda p: p.endswith(f"/{PR}.json")):
        if not rel.endswith(".json"):
            continue
        try:  # a matrix render.matrices wrote (the drift check kept it)
            entries = json.loads(show(root, ref, rel))["include"]
        except (ValueError, KeyError, TypeError) as exc:
            msg = f"{ref}:{rel}: not a matrix ({exc})"
            raise DiffError(msg) from exc
        if rel.startswith(f"{MATRICES}/accuracy/"):
            _add_cases(cases, Path(rel).stem, entries)
        else:
            jobs.update((_job_key(e), e) for e in entries)
    return cases, jobs


def _head(expanded: Expanded) -> tuple[dict[str, CaseEntry], dict[str, JobEntry]]:
    """The cases and jobs the working tree renders (what `make workflows` commits)."""
    cases: dict[str, CaseEntry] = {}
    for level in sorted(LEVELS, key=lambda name: name == PR):
        _add_cases(cases, level, level_entries(expanded, level))
    runs = [s.default_run for s in expanded.schedules]
    runs += [run for p in expanded.presets for run in p.runs.values()]
    jobs: dict[str, JobEntry] = {}
    for run in runs:
        jobs.update((_job_key(e), e) for e in run_matrix(expanded, run)["include"])
    return cases, jobs


def _why(old: ServerEntry | None, new: ServerEntry, keys: tuple[str, ...]) -> str | None:
    if old is None:
        return "new"
    changed = [k for k in keys if old.get(k) != new.get(k)]
    return f"{', '.join(changed)} changed" if changed else None


def _changed(
    old: Mapping[str, ServerEntry], new: Mapping[str, ServerEntry], keys: tuple[str, ...]
) -> dict[str, str]:
    return {
        key: why
        for key, entry in sorted(new.items())
        if (why := _why(old.get(key), entry, keys)) is not None
    }


def build_files(build: ImageBuild | None, files: Iterable[str]) -> tuple[str, ...]:
    """The files among `files` that the PR image's build reads (its `paths`, as fnmatch
    patterns: `*` also matches `/`)."""
    if build is None:
        return ()
    return tuple(f for f in files if any(fnmatchcase(f, p) for p in build.paths))


def build_entries(build: ImageBuild, entries: Iterable[EntryT]) -> list[EntryT]:
    """The entries that run on the PR image when one is built: those of its server mode
    whose image is of its base's repository."""
    return [
        e
        for e in entries
        if e["server_mode"] == build.server_mode
        and e["image"]
        and is_allowed(e["image"], [build.base])
    ]


def _more(found: tuple[str, ...] | list[str]) -> str:
    return found[0] + (f" and {len(found) - 1} more" if len(found) > 1 else "")


def diff(root: Path, base: str, head: Expanded, *, head_ref: str | None = None) -> Changes:
    """What changed between `base` (a git ref) and the working tree under `root`, whose
    catalogs `head` holds; or, with `head_ref`, the commit whose catalogs `head` holds
    (`catalog.at_ref`: a pull request's GPU run reads them as data)."""
    head_refs = [] if head_ref is None else [head_ref]
    merge_base = output(root, "merge-base", base, *(head_refs or ["HEAD"])).strip()
    committed = output(root, "diff", "--name-only", merge_base, *head_refs).split()
    untracked = output(root, "ls-files", "--others", "--exclude-standard") if not head_refs else ""
    files = tuple(sorted({*committed, *untracked.split()}))
    new_cases, new_jobs = _head(head)
    old = _base(root, merge_base)
    if old is None:
        nothing = f"{base} has no committed matrices"
        cases = dict.fromkeys(new_cases, nothing)
        jobs = dict.fromkeys(new_jobs, nothing)
    else:
        cases = _changed(old[0], new_cases, CASE_KEYS)
        jobs = _changed(old[1], new_jobs, JOB_KEYS)
    launcher = [f for f in files if f.startswith(LAUNCHER_PATHS)]
    if launcher:
        for run in head.case_runs:
            if PR in run.case.levels:
                cases.setdefault(run.id, f"PR-level case; {_more(launcher)} changed")
    build = head.catalog.image_build
    built = build_files(build, files)
    if build is not None and built:
        pr_level = [new_cases[run.id] for run in head.case_runs if PR in run.case.levels]
        for entry in build_entries(build, pr_level):
            cases.setdefault(entry["id"], f"PR-level case; {_more(built)} changed (the PR image)")
    # A job whose server mode needs an image of its own runs from a dispatch that names one.
    runnable = [key for key in sorted(jobs) if new_jobs[key]["image"]]
    for key in sorted(jobs):
        if not new_jobs[key]["image"]:
            jobs[key] += "; its server mode needs an image: dispatch the benchmark workflow"
    return Changes(
        base=base,
        files=files,
        cases=tuple(sorted(cases.items())),
        jobs=tuple(sorted(jobs.items())),
        case_entries=tuple(new_cases[i] for i in sorted(cases)),
        job_entries=tuple(new_jobs[k] for k in runnable),
        built=built,
    )


def text(changes: Changes) -> str:
    lines = [f"against {changes.base}: {len(changes.files)} file(s) changed"]
    lines.append(f"accuracy cases to run: {len(changes.cases)}")
    lines += [f"  {i}: {why}" for i, why in changes.cases]
    jobs = len(changes.jobs)
    lines.append(f"benchmark jobs whose server, client, points or image changed: {jobs}")
    lines += [f"  {i}: {why}" for i, why in changes.jobs]
    if changes.built:
        lines.append(f"the PR image is built: {_more(changes.built)} changed")
    return "\n".join(lines) + "\n"


def executed_differences(
    root: Path, default: str, head: str, build: ImageBuild | None = None
) -> tuple[str, ...]:
    """Every file under EXECUTED_PATHS (and, with `build`, of the PR image's build) that
    differs between the default branch `default` and the commit `head` (both git refs of
    the checkout `root`): what the GPU job runs that is not the default branch's,
    whichever branch the head grew from."""
    changed = output(root, "diff", "--no-renames", "--name-only", default, head)
    names = [n for n in changed.split("\n") if n]
    built = set(build_files(build, names))
    return tuple(sorted(n for n in names if n.startswith(EXECUTED_PATHS) or n in built))
