"""The `sglang-ci` command: click options only; the stages do the work.

load -> expand -> lint | render | plan | explain. Exit codes: 0 success, 1 a failed check
(drift, lint), 2 bad input, 3 a bug (`--debug` shows the traceback): generator/context.py.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import click

from generator.catalog.model import LEVELS
from generator.confirm.cli import confirm_group
from generator.context import Context, run
from generator.dispatch import pr_select
from generator.dispatch import steps as dispatch
from generator.dispatch.diff import diff
from generator.dispatch.diff import text as diff_text
from generator.dispatch.verify_cli import verify_group
from generator.errors import CheckFailed, SelectionError, did_you_mean
from generator.expand.entries import case_entry, cell_entry, job_entry
from generator.expand.model import KINDS, Expanded
from generator.expand.select import image_for, query
from generator.explain import explain
from generator.images import prbuild, registry_from_env
from generator.jsonio import dumps
from generator.launch import jsonread
from generator.launch.logtext import one_line
from generator.lint import errors as lint_errors
from generator.lint import format_json, format_text, lint, newer_sglang, ordered
from generator.plan.change import change_text, expanded_at_base, week_change
from generator.plan.coverage import markdown, summary
from generator.plan.text import format_text as format_plan
from generator.plan.week import plan_query, plan_week
from generator.render import render
from generator.render.drift import FIX, drift
from generator.render.write import write_all
from generator.report.cli import results_group

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from generator.dispatch.steps import Selected


def emit(data: object) -> None:
    sys.stdout.write(dumps(data))


def once(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> str | None:
    """The value of an option given at most once (click would keep the last silently)."""
    if len(values) > 1:
        shown = ", ".join(f"'{v}'" for v in values)
        msg = f"given {len(values)} times ({shown}); give it once"
        raise click.BadParameter(msg)
    return values[0] if values else None


def single(*names: str, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A text option that may be given once: a second value is an error, not the winner."""
    return click.option(*names, multiple=True, callback=once, **kwargs)


def selection_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--suite, --group, --cron, --preset and --mode."""
    options = [
        single("--suite", help="Suite name or key (SGLang-OOB/oob, SGLang-Mesh/mesh)."),
        single("--group", help="Cron group name."),
        single("--cron", help="Cron expression of a group, e.g. '0 14 * * 5'."),
        single("--preset", help="Manual preset name or alias."),
        single("--mode", help="Server mode (default: the group's, else the suite's first)."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


image_option = single("--image", help="Image override.")


def _one_selection(group: str | None, cron: str | None, preset: str | None) -> None:
    if sum(x is not None for x in (group, cron, preset)) > 1:
        msg = "pass at most one of --group, --cron and --preset"
        raise click.UsageError(msg)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
    help="The checkout to read: its catalogs/ and templates/.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks.")
@click.version_option(package_name="sglang-ci", prog_name="sglang-ci")
@click.pass_context
def main(ctx: click.Context, root: Path, debug: bool) -> None:
    """Benchmark and accuracy CI for SGLang, rendered from catalogs."""
    ctx.obj = Context(root, debug)


def _listing(what: str) -> Callable[..., None]:
    """The body of `cells` and `jobs`: a selection's cells or jobs as JSON."""

    @selection_options
    @image_option
    @click.pass_context
    def command(ctx: click.Context, /, image: str | None, **selectors: str | None) -> None:
        _one_selection(selectors["group"], selectors["cron"], selectors["preset"])

        def work(c: Context) -> None:
            expanded = c.expanded()
            q = query(expanded, image=image, **selectors)
            shown = image_for(expanded.catalog, q.run.mode, image)
            if what == "cells":
                emit([cell_entry(cell, shown) for cell in q.run.cells])
            else:
                emit({"include": [job_entry(expanded.catalog, j, shown) for j in q.run.jobs]})

        run(ctx, work)

    return command


main.command(name="cells", help="Benchmark cells of a selection, as a JSON array.")(
    _listing("cells")
)
main.command(name="jobs", help='GPU jobs (one server each) of a selection, as {"include": [...]}.')(
    _listing("jobs")
)


@main.command()
@click.option("--level", type=click.Choice(LEVELS))
@click.option("--suite", help="Accuracy suite (atom, sglang).")
@click.pass_context
def cases(ctx: click.Context, level: str | None, suite: str | None) -> None:
    """Accuracy cases, as a JSON array: one entry per image a case runs on, at each of its
    levels (or at --level)."""

    def work(c: Context) -> None:
        expanded = c.expanded()
        known = [s.name for s in expanded.catalog.accuracy_suites]
        if suite is not None and suite not in known:
            msg = f"unknown accuracy suite '{suite}'{did_you_mean(suite, known)}"
            raise SelectionError(msg)
        emit(
            [
                case_entry(expanded.catalog, r, lv)
                for lv in ((level,) if level else LEVELS)
                for r in expanded.case_runs
                if lv in r.case.levels and (suite is None or r.case.suite == suite)
            ]
        )

    run(ctx, work)


@main.command(name="explain")
@click.argument("entry_id")
@click.option("--kind", type=click.Choice(KINDS), help="What the id names, when it names several.")
@click.option("--mode", help="Server mode (default: the suite's first).")
@image_option
@click.option(
    "--sglang",
    "release",
    metavar="RELEASE",
    help="Name the server's flags as this SGLang release does, as the launcher does for the "
    "release its image carries (default: as the catalog writes them).",
)
@click.pass_context
def explain_cmd(
    ctx: click.Context,
    entry_id: str,
    kind: str | None,
    mode: str | None,
    image: str | None,
    release: str | None,
) -> None:
    """The exact env and commands of a config, job, cell, accuracy case or preset."""
    run(
        ctx,
        lambda c: click.echo(
            explain(c.expanded(), entry_id, kind=kind, mode=mode, image=image, release=release),
            nl=False,
        ),
    )


@main.command(name="summary")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of Markdown tables.")
@click.pass_context
def summary_cmd(ctx: click.Context, as_json: bool) -> None:
    """Configs, cells and jobs per suite, cron group and preset; accuracy cases per level."""

    def work(c: Context) -> None:
        data = summary(c.expanded())
        if as_json:
            emit(data)
        else:
            click.echo(markdown(data), nl=False)

    run(ctx, work)


@main.command(name="plan")
@selection_options
@click.option("--week", is_flag=True, help="Every cron group over a week (the default).")
@single(
    "--base",
    metavar="REF",
    help="With --week: the launches and GPU-hours the change since REF adds or removes.",
)
@click.option("--json", "as_json", is_flag=True, help="JSON instead of a table.")
@click.pass_context
def plan_cmd(
    ctx: click.Context, /, week: bool, base: str | None, as_json: bool, **selectors: str | None
) -> None:
    """Jobs, server launches, cells, GPU-hours and wall time: packed and one job per cell."""
    _one_selection(selectors["group"], selectors["cron"], selectors["preset"])
    chosen = any(v is not None for v in selectors.values())
    if (week or base is not None) and chosen:
        msg = f"{'--base' if base is not None else '--week'} takes no selection"
        raise click.UsageError(msg)

    def work(c: Context) -> None:
        expanded = c.expanded()
        if base is not None:
            commit, before = expanded_at_base(c.root, base)
            data = {"base": base, "merge_base": commit, **week_change(before, expanded)}
            emit(data) if as_json else click.echo(change_text(data), nl=False)
            return
        data = (
            plan_query(query(expanded, **selectors), expanded.catalog)
            if chosen
            else plan_week(expanded)
        )
        if as_json:
            emit(data)
        else:
            click.echo(format_plan(data), nl=False)

    run(ctx, work)


def _checked(expanded: Expanded) -> Expanded:
    """Render and check refuse catalogs with lint errors, before writing anything."""
    bad = lint_errors(lint(expanded))
    if bad:
        first = bad[0]
        msg = (
            f"{first.loc}: {first.rule} {first.name}: {first.message} "
            f"({len(bad)} lint error(s); run `sglang-ci lint`)"
        )
        raise CheckFailed(msg)
    return expanded


@main.command(name="render")
@click.pass_context
def render_cmd(ctx: click.Context) -> None:
    """Write every generated file (workflows, matrices, docs) from the catalogs."""

    def work(c: Context) -> None:
        outputs = render(_checked(c.expanded()), c.root)
        changed = write_all(c.root, outputs)
        click.echo(f"rendered {len(outputs)} files; {len(changed)} changed")
        for rel in changed:
            click.echo(f"  {rel}")

    run(ctx, work)


@main.command(name="check")
@click.pass_context
def check_cmd(ctx: click.Context) -> None:
    """Fail (exit 1) when committed generated files differ from the catalogs."""

    def work(c: Context) -> None:
        outputs = render(_checked(c.expanded()), c.root)
        diffs = drift(c.root, outputs)
        if diffs:
            sys.stdout.write("".join(diffs))
            msg = (
                f"{len(diffs)} generated file(s) differ from the catalogs; "
                f"run `{FIX}` and commit the result"
            )
            raise CheckFailed(msg)
        click.echo(f"check: {len(outputs)} generated files match the catalogs")

    run(ctx, work)


@main.command(name="lint")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
@click.pass_context
def lint_cmd(ctx: click.Context, as_json: bool) -> None:
    """Named rules over both catalogs; exit 1 on any error that is not waived."""

    def work(c: Context) -> int:
        expanded = c.expanded()
        findings = ordered([*lint(expanded), *newer_sglang(os.environ)])
        if as_json:
            sys.stdout.write(format_json(findings))
        else:
            click.echo(format_text(findings, expanded.catalog), nl=False)
        return 1 if lint_errors(findings) else 0

    run(ctx, work)


main.add_command(results_group)
main.add_command(confirm_group)
main.add_command(verify_group)


@main.group(name="dispatch")
def dispatch_group() -> None:
    """The workflows' select step: the run's matrix, images pinned (docs/images.md).

    Writes `matrix=` and `count=` to $GITHUB_OUTPUT and a block to $GITHUB_STEP_SUMMARY
    when they are set; prints what was selected."""


def _selected(c: Context, make: Callable[[Expanded, date, Any], Selected], kind: str) -> None:
    now = datetime.now(UTC)
    selected = make(c.expanded(), now.date(), registry_from_env(os.environ))
    _append("GITHUB_OUTPUT", dispatch.outputs(selected))
    if os.environ.get("GITHUB_RUN_ID"):
        run_id, attempt = os.environ["GITHUB_RUN_ID"], os.environ.get("GITHUB_RUN_ATTEMPT", "1")
        _append("GITHUB_OUTPUT", f"run_name={dispatch.history_name(kind, run_id, attempt, now)}\n")
    _append("GITHUB_STEP_SUMMARY", selected.summary)
    click.echo(f"selected {one_line(selected.what)}")


def _append(variable: str, text: str) -> None:
    """Append to the file a GitHub variable names (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY)."""
    if os.environ.get(variable):
        with Path(os.environ[variable]).open("a", encoding="utf-8") as out:
            out.write(text)


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

    def work(c: Context) -> None:
        values = {k: (v or None) for k, v in opts.items()}
        event = str(values.pop("event"))
        _selected(
            c,
            lambda e, today, client: dispatch.benchmark(
                e, c.root, event=event, today=today, client=client, **values
            ),
            "benchmark",
        )

    run(ctx, work)


@dispatch_group.command(name="accuracy")
@click.option("--level", required=True, help="Accuracy level: nightly or pr.")
@click.option("--cases", help="Comma-separated case ids of the level (empty: all of them).")
@click.pass_context
def dispatch_accuracy(ctx: click.Context, /, level: str, cases: str | None) -> None:
    """The accuracy workflow's matrix: a level, or some of its cases."""
    run(
        ctx,
        lambda c: _selected(
            c,
            lambda e, today, client: dispatch.accuracy(
                e, c.root, level=level, cases=cases or None, today=today, client=client
            ),
            "accuracy",
        ),
    )


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
def dispatch_pr(
    ctx: click.Context,
    /,
    base: str,
    head: str,
    benchmark: bool,
    pr_base: str | None,
    default_branch: str | None,
    number: int | None,
    build: bool,
) -> None:
    """A pull request's GPU run: what `sglang-ci diff BASE` lists for the commit HEAD,
    images pinned, computed by this checkout's code from HEAD's catalogs read as data;
    outputs matrix/count (accuracy), jobs/jobs_count (benchmark) and build (the pull
    request's image to build, or empty)."""

    if (pr_base is None) != (default_branch is None):
        msg = "--pr-base and --default-branch go together"
        raise click.UsageError(msg)
    if build and number is None:
        msg = "--build needs the pull request's number (--pr)"
        raise click.UsageError(msg)

    def work(c: Context) -> None:
        selected = pr_select.pr(
            c.root,
            base=base,
            head=head,
            benchmark=benchmark,
            today=datetime.now(UTC).date(),
            client=registry_from_env(os.environ),
            pr_base=pr_base,
            default_branch=default_branch,
            number=number,
            build=build,
        )
        accuracy, jobs = selected.accuracy, selected.jobs
        _append("GITHUB_OUTPUT", pr_select.pr_outputs(accuracy, jobs, selected.build))
        _append("GITHUB_STEP_SUMMARY", accuracy.summary + jobs.summary)
        built = (
            f"; builds {selected.build.repository}:{selected.build.tag}" if selected.build else ""
        )
        click.echo(f"selected {one_line(accuracy.what)}; {one_line(jobs.what)}{built}")

    run(ctx, work)


_json_file = click.Path(dir_okay=False, exists=True, path_type=Path)


def _read_json(path: Path) -> dict[str, Any]:
    """A matrix file (`{"include": [...]}`), or bad input naming the file."""
    try:
        data = jsonread.load(path)
    except (OSError, ValueError) as exc:
        msg = f"{path}: not a matrix ({one_line(str(exc))})"
        raise SelectionError(msg) from None
    if not isinstance(data, dict) or not isinstance(data.get("include"), list):
        msg = f"{path}: not a matrix (no 'include' list)"
        raise SelectionError(msg)
    return data


@dispatch_group.command(name="built")
@click.option(
    "--matrix",
    "matrix_file",
    type=_json_file,
    required=True,
    help="The selected cases (JSON file).",
)
@click.option(
    "--jobs", "jobs_file", type=_json_file, required=True, help="The selected jobs (JSON file)."
)
@click.option(
    "--build",
    "build_file",
    type=_json_file,
    required=True,
    help="The select job's build plan (JSON file; empty: none).",
)
@click.option("--digest", default="", help="The digest the builder pushed (with a plan).")
@click.pass_context
def dispatch_built(
    ctx: click.Context, /, matrix_file: Path, jobs_file: Path, build_file: Path, digest: str
) -> None:
    """A pull request's GPU run after its image is built: the cases and jobs the plan
    names on the pushed digest (checked against the registry), outputs matrix/count and
    jobs/jobs_count as `dispatch pr` does; without a plan, the selection unchanged."""

    def work(c: Context) -> None:
        del c
        matrices = [_read_json(matrix_file), _read_json(jobs_file)]
        text = build_file.read_text(encoding="utf-8").strip()
        if text:
            plan = prbuild.read_plan(text)
            matrices = prbuild.apply(plan, digest, matrices, registry_from_env(os.environ))
            _append("GITHUB_STEP_SUMMARY", prbuild.summary_markdown(plan, digest=digest))
        accuracy, jobs = (dispatch.Selected(what="", matrix=m, summary="") for m in matrices)
        _append("GITHUB_OUTPUT", pr_select.pr_outputs(accuracy, jobs))
        where = f"the image built, {digest}" if text else "their own images (nothing built)"
        click.echo(f"{accuracy.count} cases and {jobs.count} jobs run on {where}")

    run(ctx, work)


@main.command(name="diff")
@click.argument("base")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
@click.pass_context
def diff_cmd(ctx: click.Context, /, base: str, as_json: bool) -> None:
    """What a change runs on the GPUs against BASE (a git ref): the accuracy cases whose
    server, evaluator, gate or image changed (and the PR-level cases when the launcher,
    scripts or templates changed), and the benchmark jobs whose server, client, points
    or image changed. A docs-only change lists none."""

    def work(c: Context) -> None:
        changes = diff(c.root, base, c.expanded())
        if as_json:
            emit(changes.as_json())
        else:
            click.echo(diff_text(changes), nl=False)

    run(ctx, work)
