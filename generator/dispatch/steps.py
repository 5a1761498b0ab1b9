"""What a workflow run executes: the select step of the benchmark and accuracy workflows.

A cron or a plain preset reads its committed matrix (the drift check keeps it equal to
the catalog); `configs` and `points` build a matrix for an ad-hoc selection; then every
image of the run is validated and pinned to a digest once (docs/images.md). Nothing
here starts a GPU job: a bad input fails the select step with one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import UTC
from typing import Any

from generator.catalog.at_ref import commit_of, load_at
from generator.catalog.catalog_types import LEVELS, PER_SERVER, PR
from generator.dispatch.diff import build_entries, diff, executed_differences
from generator.errors import Loc, SelectionError, did_you_mean
from generator.expand import expand
from generator.expand.custom import custom_jobs, find_configs, parse_points
from generator.expand.entries import job_entry
from generator.expand.query import find_preset, find_schedule
from generator.expand.select import check_image, check_mode, image_for
from generator.images import (
    parse_reference,
    prbuild,
    resolve,
    resolve_matrix,
    sglang,
    summary_markdown,
)
from generator.jsonio import compact
from generator.launch.logtext import md_code, one_line
from generator.render.limits import MAX_MATRIX_JOBS, check_matrix
from generator.render.matrices import accuracy_path, benchmark_path, level_entries

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import date, datetime
    from pathlib import Path

    from generator.dispatch.diff import Changes
    from generator.expand.expanded import Expanded
    from generator.images.registry import Registry

NONE = "none"  # the dropdown's default: run nothing


@dataclass(frozen=True, kw_only=True)
class Selected:
    what: str  # one line: what was selected
    matrix: dict[str, Any]
    summary: str  # Markdown for the step summary

    @property
    def count(self) -> int:
        return len(self.matrix["include"])


def preset_name(label: str) -> str:
    """A dropdown label (`all-deepseek (10 configs, 100 cells, ~129 GPU-h)`,
    `ds-all / all (...)`) or a bare name, as the preset's name."""
    return label.strip().split(" ", 1)[0]


def _read(root: Path, rel: str) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads((root / rel).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        msg = f"{rel}: cannot read the committed matrix ({exc}); run make workflows"
        raise SelectionError(msg) from exc
    return data


def _with_image(matrix: dict[str, Any], image: str | None) -> dict[str, Any]:
    """Every entry on the dispatch's image, when it names one (checked by the caller)."""
    if not image:
        return matrix
    return {"include": [{**e, "image": image} for e in matrix["include"]]}


def _pin(
    expanded: Expanded, what: str, matrix: dict[str, Any], today: date, client: Registry | None
) -> Selected:
    for entry in matrix["include"]:
        mode = entry["server_mode"]
        if not entry["image"]:
            msg = f"server mode '{mode}' needs an image of its own: set the image"
            raise SelectionError(msg)
        # Whatever chose it (a dispatch, the catalog's default, a case's image or nightly
        # pattern), an image outside the mode's repositories never reaches a runner.
        check_image(expanded.catalog, mode, entry["image"])
    window = expanded.catalog.nightly_window_days
    pinned, resolutions = resolve_matrix(matrix, today, window, client)
    # No server whose image's SGLang refuses one of its flags reaches a GPU job.
    releases = sglang.check_matrix(expanded.catalog, pinned, client)
    jobs = len(pinned["include"])
    points = sum(len(e.get("points", ())) for e in pinned["include"])
    counted = f"{jobs} job{'s' * (jobs != 1)}" + (f", {points} points" if points else "")
    summary = (
        f"### Selected: {what}\n\n{counted}\n\n"
        + summary_markdown(resolutions)
        + sglang.summary_markdown(releases)
    )
    return Selected(what=f"{what}: {counted}", matrix=pinned, summary=summary)


def benchmark(
    expanded: Expanded,
    root: Path,
    *,
    event: str,
    schedule: str | None = None,
    suite: str | None = None,
    preset: str | None = None,
    configs: str | None = None,
    points: str | None = None,
    mode: str | None = None,
    image: str | None = None,
    today: date,
    client: Registry | None,
) -> Selected:
    """The benchmark workflow's matrix for one event."""
    catalog = expanded.catalog
    if event == "schedule":
        sched = find_schedule(expanded, name=None, cron=schedule or "")
        matrix = _read(root, benchmark_path("schedule", sched.name))
        return _pin(expanded, f"cron group {sched.name} ({sched.title})", matrix, today, client)
    suites = {s.name: s for s in catalog.suites}
    if suite is None:
        msg = f"suite: --suite is required for a {event} event: one of {', '.join(suites)}"
        raise SelectionError(msg)
    if suite not in suites:
        msg = f"suite: unknown suite '{suite}'{did_you_mean(str(suite), suites)}"
        raise SelectionError(msg)
    name = preset_name(preset or NONE)
    if configs and name != NONE:
        msg = "choose a preset or configs, not both"
        raise SelectionError(msg)
    if not configs and name == NONE:
        if points:
            msg = "points: choose a preset or configs to run them on"
            raise SelectionError(msg)
        return Selected(
            what="nothing (no preset chosen)",
            matrix={"include": []},
            summary="### Selected: nothing\n\nThe preset is `none`: no GPU job runs.\n",
        )
    chosen_mode = mode or suites[str(suite)].server_modes[0]
    if image:
        parse_reference(image)  # a malformed reference is named as such first
    check_mode(catalog, (str(suite),), chosen_mode, image)
    if configs or points:
        picked = (
            find_configs(expanded, configs, suite)
            if configs
            else find_preset(expanded, name, suite).configs
        )
        foreign = [c.prefix for c in picked if c.suite != suite]
        if foreign:
            msg = f"configs: {', '.join(foreign)} not in suite {suite}"
            raise SelectionError(msg)
        jobs = (
            custom_jobs(expanded, picked, parse_points(points), chosen_mode)
            if points
            else tuple(
                j for c in picked for j in expanded.jobs[(c.prefix, chosen_mode, PER_SERVER)]
            )
        )
        shown = image_for(catalog, chosen_mode, None)
        matrix = {"include": [dict(job_entry(catalog, j, shown)) for j in jobs]}
        what = f"configs {', '.join(c.prefix for c in picked)}" + (
            " on custom points" if points else ""
        )
    else:
        found = find_preset(expanded, name, suite)
        matrix = _read(
            root, benchmark_path("preset", found.name, suites[str(suite)].key, chosen_mode)
        )
        what = f"preset {found.name}"
    matrix = _with_image(matrix, image)
    check_matrix(what, catalog.suite(str(suite)).loc, matrix)
    return _pin(expanded, f"{what} ({suite}, {chosen_mode})", matrix, today, client)


def accuracy(
    expanded: Expanded,
    root: Path,
    *,
    level: str,
    cases: str | None = None,
    today: date,
    client: Registry | None,
) -> Selected:
    """The accuracy workflow's matrix: a level, or some of its cases."""
    if level not in LEVELS:
        msg = f"level: unknown level '{level}'{did_you_mean(level, LEVELS)}"
        raise SelectionError(msg)
    matrix = _read(root, accuracy_path(level))
    what = f"accuracy level {level}"
    if cases:
        wanted = [c.strip() for c in cases.split(",") if c.strip()]
        known = {e["id"] for e in matrix["include"]} | {e["case"] for e in matrix["include"]}
        unknown = [c for c in wanted if c not in known]
        if unknown:
            hint = did_you_mean(unknown[0], known)
            msg = f"cases: no case in level {level} has id {', '.join(unknown)}{hint}"
            raise SelectionError(msg)
        matrix = {
            "include": [e for e in matrix["include"] if e["id"] in wanted or e["case"] in wanted]
        }
        what += f", cases {', '.join(wanted)}"
    return _pin(expanded, what, matrix, today, client)


def history_name(kind: str, run_id: str, attempt: str, now: datetime) -> str:
    """The name a workflow run has in the history, given once by its select job and used
    by every command that judges, summarizes, tracks or admits it: the time the run was
    selected (so names sort as the runs started), its kind, GitHub's run id and attempt."""
    return f"{now.astimezone(UTC):%Y-%m-%dT%H-%M-%SZ}-{kind}-{run_id}-{attempt}"


def outputs(selected: Selected) -> str:
    """The select step's outputs, as GITHUB_OUTPUT lines."""
    return f"matrix={compact(selected.matrix)}\ncount={selected.count}\n"


@dataclass(frozen=True, kw_only=True)
class PrRun:
    """A pull request's GPU run as selected: its cases, its jobs, and the image it builds
    (None: the entries run their own images)."""

    accuracy: Selected
    jobs: Selected
    build: prbuild.Plan | None = None


def pr(
    root: Path,
    *,
    base: str,
    head: str,
    benchmark: bool,
    today: date,
    client: Registry | None,
    pr_base: str | None = None,
    default_branch: str | None = None,
    number: int | None = None,
    build: bool = False,
) -> PrRun:
    """A pull request's GPU run: the accuracy cases and (when asked) the benchmark jobs
    its head commit `head` reaches against `base`, the default branch (`sglang-ci diff`,
    from their merge base), images pinned. A pull request into another branch than the
    default one (`pr_base` against `default_branch`) is refused: its own diff would hide
    what its base branch changed.

    With the catalog's `images.build` and the pull request's `number`, a change to the
    build's paths (or `build`) builds PR #number's image: its PR-level cases, and the
    cases and jobs the change reaches, of the build's server mode and base repository, run
    on it (pinned to the base here; the pin job puts the built digest in).

    Run with the default branch's code in its checkout `root`: the head's catalogs are
    read as data (`catalog.at_ref`, the runner contract, image repositories and PR image
    builder and repository the default branch's), and no code of the pull request runs."""
    if pr_base is not None and pr_base != default_branch:
        msg = (
            f"the pull request targets {one_line(pr_base)!r}, not the default branch "
            f"{one_line(str(default_branch))!r}: GPU runs take pull requests into the default "
            "branch only (retarget it, or merge its base first)"
        )
        raise SelectionError(msg)
    sha, catalog = load_at(root, head)
    expanded = expand(catalog)
    changes = diff(root, base, expanded, head_ref=sha)
    executed = executed_differences(root, base, sha, catalog.image_build)
    where = Loc(str(catalog.benchmark_file), 1)
    spec = catalog.image_build if number is not None else None
    wanted = spec is not None and (build or bool(changes.built))
    case_entries = list(changes.case_entries)
    if spec is not None and wanted and build:
        # Asked for: every PR-level case that runs on the image, as when its Dockerfile changed.
        have = {e["id"] for e in case_entries}
        case_entries += [
            e for e in build_entries(spec, level_entries(expanded, PR)) if e["id"] not in have
        ]
        changes = replace(
            changes,
            cases=(
                *changes.cases,
                *((e["id"], "PR-level case; the dispatch asked for the PR image")
                  for e in case_entries if e["id"] not in have),
            ),
        )  # fmt: skip
    job_entries = list(changes.job_entries) if benchmark else []
    plan = None
    if spec is not None and wanted:
        on_built = {e["id"] for e in build_entries(spec, [*case_entries, *job_entries])}
        if on_built:
            pinned = resolve(spec.base, today, catalog.nightly_window_days, client).image
            case_entries = [
                {**e, "image": pinned} if e["id"] in on_built else e for e in case_entries
            ]
            job_entries = [
                {**e, "image": pinned} if e["id"] in on_built else e for e in job_entries
            ]
            plan = prbuild.plan(
                spec,
                pr=int(number or 0),
                head=sha,
                base=pinned,
                cases=[e["id"] for e in case_entries if e["id"] in on_built],
                jobs=[e["id"] for e in job_entries if e["id"] in on_built],
            )
    picked = []
    for kind, entries, workflow in (
        ("accuracy cases", case_entries, "the accuracy workflow"),
        ("benchmark jobs", job_entries, "the benchmark workflow"),
    ):
        if len(entries) > MAX_MATRIX_JOBS:
            msg = (
                f"this change reaches {len(entries)} {kind}, more than a matrix holds "
                f"({MAX_MATRIX_JOBS}): run {workflow} on the branch instead"
            )
            raise SelectionError(msg)
        matrix = {"include": list(entries)}
        check_matrix(f"this change's {kind}", where, matrix)
        picked.append(_pin(expanded, f"{kind} changed against {base}", matrix, today, client))
    accuracy, jobs = picked
    trusted = commit_of(root, "HEAD")
    report = approval_markdown(
        replace(changes, case_entries=tuple(case_entries)),
        accuracy,
        jobs,
        head=sha,
        trusted=trusted,
        executed=executed,
    )
    if plan is not None and spec is not None:
        report += prbuild.summary_markdown(plan, runner=spec.runner)
    if not benchmark:
        report += "Benchmark jobs run only when the dispatch asks for them (`benchmark`).\n\n"
    return PrRun(
        accuracy=replace(accuracy, summary=report + accuracy.summary), jobs=jobs, build=plan
    )


def approval_markdown(
    changes: Changes,
    accuracy: Selected,
    jobs: Selected,
    *,
    head: str,
    trusted: str,
    executed: Sequence[str] = (),
) -> str:
    """What the reviewer of the GPU run approves: every case and job with its image (as
    pinned), its runner label and what changed, the commits it was computed from, and
    every file the GPU jobs run from the head that differs from the default branch."""
    why = dict(changes.cases)
    why_jobs = dict(changes.jobs)
    lines = [
        "### What this change runs on the GPUs",
        "",
        (
            f"Computed by the default branch's sglang-ci (`{trusted}`) from the catalogs of the "
            f"pull request's head `{head}`, read as data; the runner contract and the image "
            "repositories are the default branch's. The GPU jobs check out that head."
        ),
        "",
        f"{len(changes.files)} file(s) changed since the merge base with `{changes.base}`.",
        "",
    ]
    if executed:
        lines += [
            (
                f"The GPU jobs run these {len(executed)} file(s) from the head, each different "
                f"from `{changes.base}` (launcher, scripts, generator, templates, catalogs, "
                "workflows, install files, the PR image's build):"
            ),
            "",
            *(f"- {md_code(f)}" for f in executed),
            "",
        ]
    else:
        lines += [f"The GPU jobs run no file that differs from `{changes.base}`.", ""]
    rows = [
        ("accuracy case", e["id"], e["runner"], e["image"], e["image_requested"], why[e["id"]])
        for e in accuracy.matrix["include"]
    ]
    rows += [
        ("benchmark job", e["id"], e["runner"], e["image"], e["image_requested"],
         why_jobs[f"{e['id']} ({e['server_mode']})"])
        for e in jobs.matrix["include"]
    ]  # fmt: skip
    if rows:
        lines += [
            "| Kind | Id | Runner label | Image | Requested | What changed |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        lines += [f"| {k} | `{i}` | `{r}` | `{im}` | `{rq}` | {w} |" for k, i, r, im, rq, w in rows]
    else:
        lines.append("Nothing of this change reaches a GPU job.")
    left = [
        f"- `{key}`: {w}"
        for key, w in changes.jobs
        if w.endswith("dispatch the benchmark workflow")
    ]
    if left:
        lines += ["", "Not run here (their server mode needs an image of its own):", *left]
    return "\n".join(lines) + "\n\n"


def pr_outputs(accuracy: Selected, benchmark: Selected, build: prbuild.Plan | None = None) -> str:
    """The PR select step's outputs: both matrices and their counts, and the image to build
    (empty: none)."""
    planned = compact(build.as_json()) if build is not None else ""
    return (
        outputs(accuracy)
        + f"jobs={compact(benchmark.matrix)}\njobs_count={benchmark.count}\nbuild={planned}\n"
    )
