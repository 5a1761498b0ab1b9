"""What a change to the repository changes on the GPUs: `sglang-ci diff BASE_REF`.

The catalogs at the merge base of BASE_REF and HEAD and in the working tree are both
expanded; an accuracy case runs again when its entry (server, evaluator, image, gate)
changed or is new, a benchmark job when its server, client, points or image changed or
it is new. A change to the launcher, the scripts or the workflow templates runs the
PR-level cases: they test every path. A change to nothing of this (docs, say) runs
nothing. The PR GPU workflow runs exactly this (docs/security.md).
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.catalog import ACCURACY, BENCHMARK, load
from generator.catalog.model import PER_SERVER
from generator.errors import SglangCIError
from generator.expand import expand
from generator.expand.entries import case_entry, job_entry
from generator.expand.model import Expanded
from generator.expand.select import default_mode, image_for

# Paths whose change reaches every GPU job: the launcher and what starts it.
LAUNCHER_PATHS = ("generator/launch/", "scripts/", "templates/")
PR_LEVEL = "pr"


class DiffError(SglangCIError):
    """The base cannot be read (exit 2)."""


@dataclass(frozen=True, kw_only=True)
class Changes:
    base: str
    files: tuple[str, ...]
    cases: tuple[tuple[str, str], ...]  # (case run id, why)
    jobs: tuple[tuple[str, str], ...]  # (job id, why)
    case_entries: tuple[dict[str, Any], ...] = field(default=())  # the cases, as entries
    job_entries: tuple[dict[str, Any], ...] = field(default=())  # the jobs, as entries

    def as_json(self) -> dict[str, Any]:
        return {
            "base": self.base,
            "files": list(self.files),
            "cases": [{"id": i, "why": w} for i, w in self.cases],
            "jobs": [{"id": i, "why": w} for i, w in self.jobs],
        }


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise DiffError(f"git {' '.join(args)}: {done.stderr.strip() or 'failed'}")
    return done.stdout


def _base(root: Path, ref: str, into: Path) -> Expanded | None:
    """The base's catalogs, expanded; None when this version cannot read them."""
    for rel in (BENCHMARK, ACCURACY):
        target = into / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(_git(root, "show", f"{ref}:{rel}"), encoding="utf-8")
    try:
        return expand(load(into))
    except SglangCIError:
        return None


def _case_entries(expanded: Expanded) -> dict[str, dict[str, Any]]:
    out = {}
    for run in expanded.case_runs:
        level = PR_LEVEL if PR_LEVEL in run.case.levels else run.case.levels[0]
        entry = dict(case_entry(expanded.catalog, run, level))
        out[run.id] = entry
    return out


def _job_entries(expanded: Expanded) -> dict[str, dict[str, Any]]:
    catalog = expanded.catalog
    out = {}
    for config in catalog.configs:
        mode = default_mode(catalog, config)
        for job in expanded.jobs[(config.prefix, mode, PER_SERVER)]:
            out[job.id] = dict(job_entry(catalog, job, image_for(catalog, mode, None)))
    return out


def _why(old: dict[str, Any] | None, new: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    if old is None:
        return "new"
    changed = [k for k in keys if old.get(k) != new.get(k)]
    return f"{', '.join(changed)} changed" if changed else None


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


def diff(root: Path, base: str, head: Expanded) -> Changes:
    """What changed between `base` (a git ref) and the working tree under `root`, whose
    catalogs `head` holds."""
    merge_base = _git(root, "merge-base", base, "HEAD").strip()
    committed = _git(root, "diff", "--name-only", merge_base).split()
    untracked = _git(root, "ls-files", "--others", "--exclude-standard").split()
    files = tuple(sorted({*committed, *untracked}))
    with tempfile.TemporaryDirectory() as tmp:
        old = _base(root, merge_base, Path(tmp))
    new_cases, new_jobs = _case_entries(head), _job_entries(head)
    old_cases = _case_entries(old) if old is not None else {}
    old_jobs = _job_entries(old) if old is not None else {}
    cases: dict[str, str] = {}
    for run_id, entry in new_cases.items():
        why = _why(old_cases.get(run_id), entry, CASE_KEYS)
        if why is not None:
            cases[run_id] = why
    if old is None:
        cases = {i: "the base's catalogs do not load with this version" for i in new_cases}
    launcher = [f for f in files if f.startswith(LAUNCHER_PATHS)]
    if launcher:
        more = f" and {len(launcher) - 1} more" if len(launcher) > 1 else ""
        for run in head.case_runs:
            if PR_LEVEL in run.case.levels:
                cases.setdefault(run.id, f"PR-level case; {launcher[0]}{more} changed")
    jobs = {
        job_id: why
        for job_id, entry in new_jobs.items()
        if (why := _why(old_jobs.get(job_id), entry, JOB_KEYS)) is not None
    }
    return Changes(
        base=base,
        files=files,
        cases=tuple(sorted(cases.items())),
        jobs=tuple(sorted(jobs.items())),
        case_entries=tuple(new_cases[i] for i in sorted(cases)),
        job_entries=tuple(new_jobs[i] for i in sorted(jobs)),
    )


def text(changes: Changes) -> str:
    lines = [f"against {changes.base}: {len(changes.files)} file(s) changed"]
    lines.append(f"accuracy cases to run: {len(changes.cases)}")
    lines += [f"  {i}: {why}" for i, why in changes.cases]
    jobs = len(changes.jobs)
    lines.append(f"benchmark jobs whose server, client, points or image changed: {jobs}")
    lines += [f"  {i}: {why}" for i, why in changes.jobs]
    return "\n".join(lines) + "\n"
