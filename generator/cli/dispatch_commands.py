"""`sglang-ci dispatch ...`: the workflows' select step; dispatch/step_outputs.py writes
what it selected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from generator.cli.options import single
from generator.context import run
from generator.dispatch.step_outputs import write_built, write_pr, write_selected


@click.group(name="dispatch")
def dispatch_group() -> None:
    """The workflows' select step: the run's matrix, images pinned (docs/images.md).

    Writes `matrix=` and `count=` to $GITHUB_OUTPUT and a block to $GITHUB_STEP_SUMMARY
    when they are set; prints what was selected."""


@dispatch_group.command(name="benchmark")
@single("--event", required=True, help="github.event_name")
@single("--schedule", help="The cron that fired (github.event.schedule).")
@single("--suite", help="Suite name (the dispatch's suite input).")
@single("--preset", help="A preset's name or its dropdown label; 'none' runs nothing.")
@single("--configs", help="Comma-separated config prefixes, instead of a preset.")
@single("--points", help="ISL,OSL,CONC,RATIO;... replacing the chosen configs' grids.")
@single("--mode", help="Server mode.")
@single("--image", help="Image for every job (validated against the mode's images).")
@click.pass_context
def dispatch_benchmark(ctx: click.Context, /, **opts: str | None) -> None:
    """The benchmark workflow's matrix for this event."""
    values = {k: (v or None) for k, v in opts.items()}
    event = str(values.pop("event"))
    run(ctx, lambda c: write_selected(c, "benchmark", event=event, **values))


@dispatch_group.command(name="accuracy")
@click.option("--level", required=True, help="Accuracy level: nightly or pr.")
@click.option("--cases", help="Comma-separated case ids of the level (empty: all of them).")
@click.pass_context
def dispatch_accuracy(ctx: click.Context, /, level: str, cases: str | None) -> None:
    """The accuracy workflow's matrix: a level, or some of its cases."""
    run(ctx, lambda c: write_selected(c, "accuracy", level=level, cases=cases or None))


@dispatch_group.command(name="pr")
@click.option("--base", required=True, help="The base branch as a git ref (origin/main).")
@click.option("--head", required=True, help="The pull request's head commit (its catalogs).")
@click.option("--benchmark", is_flag=True, help="Also the benchmark jobs the change reaches.")
@click.option("--pr-base", default=None, help="The branch the pull request targets (its base).")
@click.option(
    "--default-branch", default=None, help="The repository's default branch (with --pr-base)."
)
@click.option(
    "--pr",
    "number",
    type=click.IntRange(1),
    default=None,
    help="The pull request's number: its image is built when the change reaches the build.",
)
@click.option("--build", is_flag=True, help="Build the pull request's image (with --pr) anyway.")
@click.pass_context
def dispatch_pr(ctx: click.Context, /, **opts: Any) -> None:
    """A pull request's GPU run: what `sglang-ci diff BASE` lists for the commit HEAD,
    images pinned, computed by this checkout's code from HEAD's catalogs read as data;
    outputs matrix/count (accuracy), jobs/jobs_count (benchmark) and build (the pull
    request's image to build, or empty)."""
    if (opts["pr_base"] is None) != (opts["default_branch"] is None):
        msg = "--pr-base and --default-branch go together"
        raise click.UsageError(msg)
    if opts["build"] and opts["number"] is None:
        msg = "--build needs the pull request's number (--pr)"
        raise click.UsageError(msg)
    run(ctx, lambda c: write_pr(c.root, **opts))


_json_file = click.Path(dir_okay=False, exists=True, path_type=Path)


@dispatch_group.command(name="built")
@click.option("--matrix", "matrix_file", type=_json_file, required=True,
              help="The selected cases (JSON file).")  # fmt: skip
@click.option(
    "--jobs", "jobs_file", type=_json_file, required=True, help="The selected jobs (JSON file)."
)
@click.option("--build", "build_file", type=_json_file, required=True,
              help="The select job's build plan (JSON file; empty: none).")  # fmt: skip
@click.option("--digest", default="", help="The digest the builder pushed (with a plan).")
@click.pass_context
def dispatch_built(ctx: click.Context, /, **opts: Any) -> None:
    """A pull request's GPU run after its image is built: the cases and jobs the plan
    names on the pushed digest (checked against the registry), outputs matrix/count and
    jobs/jobs_count as `dispatch pr` does; without a plan, the selection unchanged."""
    run(ctx, lambda _c: write_built(**opts))
