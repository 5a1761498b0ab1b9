"""A pull request's GPU run as the select step of pr-gpu.yml chooses it: the cases and jobs
its change reaches, the PR image it builds, and what the reviewer approves."""

from __future__ import annotations

from dataclasses import dataclass, replace

from generator.catalog.at_ref import commit_of, load_at
from generator.catalog.catalog_types import PR
from generator.core.logtext import md_code, one_line
from generator.dispatch.diff import build_entries, diff, executed_differences
from generator.dispatch.steps import Selected, outputs, pin
from generator.errors import Loc, SelectionError
from generator.expand import expand
from generator.images import prbuild, resolve
from generator.jsonio import compact
from generator.render.limits import MAX_MATRIX_JOBS, check_matrix
from generator.render.matrices import level_entries

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import date
    from pathlib import Path

    from generator.dispatch.diff import Changes
    from generator.images.matrix import EntryT, Matrix
    from generator.images.registry import Registry


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
        on_built = {e["id"] for e in build_entries(spec, case_entries)}
        on_built |= {e["id"] for e in build_entries(spec, job_entries)}
        if on_built:
            pinned = resolve(spec.base, today, catalog.nightly_window_days, client).image
            case_entries = _on_image(case_entries, on_built, pinned)
            job_entries = _on_image(job_entries, on_built, pinned)
            plan = prbuild.plan(
                spec,
                pr=int(number or 0),
                head=sha,
                base=pinned,
                cases=[e["id"] for e in case_entries if e["id"] in on_built],
                jobs=[e["id"] for e in job_entries if e["id"] in on_built],
            )

    def picked(kind: str, entries: list[EntryT], workflow: str) -> Selected:
        if len(entries) > MAX_MATRIX_JOBS:
            msg = (
                f"this change reaches {len(entries)} {kind}, more than a matrix holds "
                f"({MAX_MATRIX_JOBS}): run {workflow} on the branch instead"
            )
            raise SelectionError(msg)
        matrix: Matrix[EntryT] = {"include": list(entries)}
        check_matrix(f"this change's {kind}", where, matrix)
        return pin(expanded, f"{kind} changed against {base}", matrix, today, client)

    accuracy = picked("accuracy cases", case_entries, "the accuracy workflow")
    jobs = picked("benchmark jobs", job_entries, "the benchmark workflow")
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


def _on_image(entries: list[EntryT], ids: set[str], image: str) -> list[EntryT]:
    """The entries, those of `ids` on `image`."""
    return [{**e, "image": image} if e["id"] in ids else e for e in entries]


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
