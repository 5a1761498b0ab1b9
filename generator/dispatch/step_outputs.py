"""What the select step writes: the run's matrices to $GITHUB_OUTPUT, a block to
$GITHUB_STEP_SUMMARY (when they are set) and one line of what was selected."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

import click

from generator.core import jsonread
from generator.core.logtext import one_line
from generator.dispatch import pr_select
from generator.dispatch import steps as dispatch
from generator.errors import SelectionError
from generator.images import prbuild, pushed_image
from generator.images.resolve import registry_from_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.context import Context
    from generator.images.matrix import JobOrCaseMatrix


def append(variable: str, text: str) -> None:
    """Append to the file a GitHub variable names (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY)."""
    if os.environ.get(variable):
        with Path(os.environ[variable]).open("a", encoding="utf-8") as out:
            out.write(text)


def write_selected(c: Context, kind: str, **options: Any) -> None:
    """`dispatch benchmark|accuracy`: dispatch.benchmark's or dispatch.accuracy's selection,
    today's, its images pinned."""
    now = datetime.now(UTC)
    make = dispatch.benchmark if kind == "benchmark" else dispatch.accuracy
    client = registry_from_env(os.environ)
    selected = make(c.expanded(), c.root, today=now.date(), client=client, **options)
    append("GITHUB_OUTPUT", dispatch.outputs(selected))
    if os.environ.get("GITHUB_RUN_ID"):
        run_id, attempt = os.environ["GITHUB_RUN_ID"], os.environ.get("GITHUB_RUN_ATTEMPT", "1")
        append("GITHUB_OUTPUT", f"run_name={dispatch.history_name(kind, run_id, attempt, now)}\n")
    append("GITHUB_STEP_SUMMARY", selected.summary)
    click.echo(f"selected {one_line(selected.what)}")


def write_pr(root: Path, **options: Any) -> None:
    """`dispatch pr`: pr_select.pr's run, today's, with the registry the environment names."""
    selected = pr_select.pr(
        root, today=datetime.now(UTC).date(), client=registry_from_env(os.environ), **options
    )
    accuracy, jobs = selected.accuracy, selected.jobs
    append("GITHUB_OUTPUT", pr_select.pr_outputs(accuracy, jobs, selected.build))
    append("GITHUB_STEP_SUMMARY", accuracy.summary + jobs.summary)
    built = f"; builds {selected.build.repository}:{selected.build.tag}" if selected.build else ""
    click.echo(f"selected {one_line(accuracy.what)}; {one_line(jobs.what)}{built}")


def _read_matrix(path: Path) -> JobOrCaseMatrix:
    """A matrix file (`{"include": [...]}`) the select step wrote (`dispatch pr`), or bad
    input naming the file."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as exc:
        msg = f"{path}: not a matrix ({one_line(str(exc))})"
        raise SelectionError(msg) from None
    if not isinstance(data, dict) or not isinstance(data.get("include"), list):
        msg = f"{path}: not a matrix (no 'include' list)"
        raise SelectionError(msg)
    return cast("JobOrCaseMatrix", data)


def write_built(*, matrix_file: Path, jobs_file: Path, build_file: Path, digest: str) -> None:
    """`dispatch built`: the cases and jobs on the pushed digest, or unchanged without a plan."""
    matrices = [_read_matrix(matrix_file), _read_matrix(jobs_file)]
    text = build_file.read_text(encoding="utf-8").strip()
    if text:
        plan = prbuild.read_plan(text)
        matrices = pushed_image.apply(plan, digest, matrices, registry_from_env(os.environ))
        append("GITHUB_STEP_SUMMARY", prbuild.summary_markdown(plan, digest=digest))
    accuracy, jobs = (dispatch.Selected(what="", matrix=m, summary="") for m in matrices)
    append("GITHUB_OUTPUT", pr_select.pr_outputs(accuracy, jobs))
    where = f"the image built, {digest}" if text else "their own images (nothing built)"
    click.echo(f"{accuracy.count} cases and {jobs.count} jobs run on {where}")
