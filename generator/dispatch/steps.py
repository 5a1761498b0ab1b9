"""What a workflow run executes: the select step of the benchmark and accuracy workflows
(a pull request's: pr_select.py).

A cron or a plain preset reads its committed matrix (the drift check keeps it equal to
the catalog); `configs` and `points` build a matrix for an ad-hoc selection; then every
image of the run is validated and pinned to a digest once (docs/images.md). Nothing
here starts a GPU job: a bad input fails the select step with one line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC
from typing import cast

from generator.catalog.catalog_types import LEVELS, PER_SERVER
from generator.errors import SelectionError, did_you_mean
from generator.expand.custom import custom_jobs, find_configs, parse_points
from generator.expand.entries import job_entry
from generator.expand.query import find_preset, find_schedule
from generator.expand.select import check_image, check_mode, image_for
from generator.images import parse_reference, resolve_matrix, sglang, summary_markdown
from generator.jsonio import compact
from generator.render.limits import check_matrix
from generator.render.matrices import accuracy_path, benchmark_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import date, datetime
    from pathlib import Path

    from generator.core.contract import CaseEntry, JobEntry
    from generator.expand.expanded import Expanded
    from generator.images.matrix import EntryT, JobOrCaseMatrix, Matrix
    from generator.images.registry import Registry

NONE = "none"  # the dropdown's default: run nothing


@dataclass(frozen=True, kw_only=True)
class Selected:
    what: str  # one line: what was selected
    matrix: JobOrCaseMatrix
    summary: str  # Markdown for the step summary

    @property
    def count(self) -> int:
        return len(self.matrix["include"])


def preset_name(label: str) -> str:
    """A dropdown label (`all-deepseek (10 configs, 100 cells, ~129 GPU-h)`,
    `ds-all / all (...)`) or a bare name, as the preset's name."""
    return label.strip().split(" ", 1)[0]


def _read(root: Path, rel: str) -> object:
    """A committed matrix, as render.matrices wrote it (the drift check keeps it so)."""
    try:
        return json.loads((root / rel).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        msg = f"{rel}: cannot read the committed matrix ({exc}); run make workflows"
        raise SelectionError(msg) from exc


def pin(
    expanded: Expanded, what: str, matrix: Matrix[EntryT], today: date, client: Registry | None
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
    points = sum(len(p) for e in pinned["include"] if isinstance(p := e.get("points"), list))
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
        matrix = cast("Matrix[JobEntry]", _read(root, benchmark_path("schedule", sched.name)))
        return pin(expanded, f"cron group {sched.name} ({sched.title})", matrix, today, client)
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
        matrix = {"include": [job_entry(catalog, j, shown) for j in jobs]}
        what = f"configs {', '.join(c.prefix for c in picked)}" + (
            " on custom points" if points else ""
        )
    else:
        found = find_preset(expanded, name, suite)
        path = benchmark_path("preset", found.name, suites[str(suite)].key, chosen_mode)
        matrix = cast("Matrix[JobEntry]", _read(root, path))
        what = f"preset {found.name}"
    if image:  # every entry on the dispatch's image (checked above)
        matrix = {"include": [{**e, "image": image} for e in matrix["include"]]}
    check_matrix(what, catalog.suite(str(suite)).loc, matrix)
    return pin(expanded, f"{what} ({suite}, {chosen_mode})", matrix, today, client)


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
    matrix = cast("Matrix[CaseEntry]", _read(root, accuracy_path(level)))
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
    return pin(expanded, what, matrix, today, client)


def history_name(kind: str, run_id: str, attempt: str, now: datetime) -> str:
    """The name a workflow run has in the history, given once by its select job and used
    by every command that judges, summarizes, tracks or admits it: the time the run was
    selected (so names sort as the runs started), its kind, GitHub's run id and attempt."""
    return f"{now.astimezone(UTC):%Y-%m-%dT%H-%M-%SZ}-{kind}-{run_id}-{attempt}"


def outputs(selected: Selected) -> str:
    """The select step's outputs, as GITHUB_OUTPUT lines."""
    return f"matrix={compact(selected.matrix)}\ncount={selected.count}\n"
