"""The `sglang-ci` command: click options only; the work is done in the library."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from generator import commands
from generator.check import FIX, drift
from generator.errors import CheckFailed, SglangCIError
from generator.lint import errors as lint_errors
from generator.lint import format_json, format_text, lint
from generator.load import load_catalog
from generator.model import Catalog
from generator.output import dumps
from generator.plan import plan
from generator.plan_text import format_text as format_plan
from generator.render import render_all
from generator.summary import markdown, summary
from generator.write import write_all

UNEXPECTED_EXIT = 3


class Context:
    def __init__(self, root: Path, debug: bool) -> None:
        self.root = root
        self.debug = debug

    def catalog(self) -> Catalog:
        return load_catalog(self.root)


def run(ctx: click.Context, work: Callable[[Context], int | None]) -> None:
    """Run one subcommand: expected errors are one line; anything else is a bug (exit 3)."""
    obj: Context = ctx.obj
    try:
        code = work(obj) or 0
    except BrokenPipeError:
        # The reader went away (`| head`): nothing more to say, as other tools do.
        sys.stderr.close()
        code = 0
    except SglangCIError as e:
        if obj.debug:
            traceback.print_exc()
        click.echo(f"error: {e}", err=True)
        code = e.return_code
    except Exception as e:
        if obj.debug:
            traceback.print_exc()
        click.echo(
            f"An unexpected error has occurred: {type(e).__name__}: {e} "
            "(run with --debug for the traceback)",
            err=True,
        )
        code = UNEXPECTED_EXIT
    ctx.exit(code)


def emit(data: Any) -> None:
    sys.stdout.write(dumps(data))


selectors = [
    click.option("--suite", help="Suite name or key (SGLang-OOB/oob, SGLang-Mesh/mesh)."),
    click.option("--group", help="Cron group name."),
    click.option("--cron", help="Cron expression of a group, e.g. '0 14 * * 5'."),
    click.option("--preset", help="Manual preset name or alias."),
    click.option("--mode", help="Server mode (default: the suite's first)."),
]
image_option = click.option("--image", help="Image override.")


def with_selectors(f: Callable[..., Any]) -> Callable[..., Any]:
    """The selection options and --image."""
    return with_selection(image_option(f))


def with_selection(f: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(selectors):
        f = option(f)
    return f


def _one_selection(group: str | None, cron: str | None, preset: str | None) -> None:
    if sum(x is not None for x in (group, cron, preset)) > 1:
        raise click.UsageError("pass at most one of --group, --cron and --preset")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--root",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Repository root holding catalogs/.",
)
@click.option("--debug", is_flag=True, help="Show tracebacks.")
@click.pass_context
def main(ctx: click.Context, root: Path, debug: bool) -> None:
    """Benchmark and accuracy CI for SGLang, rendered from catalogs."""
    ctx.obj = Context(root, debug)


@main.command()
@with_selectors
@click.pass_context
def cells(
    ctx: click.Context,
    suite: str | None,
    group: str | None,
    cron: str | None,
    preset: str | None,
    mode: str | None,
    image: str | None,
) -> None:
    """Benchmark cells of a selection, as a JSON array."""
    _one_selection(group, cron, preset)
    run(
        ctx,
        lambda c: emit(
            commands.cells(
                c.catalog(),
                suite=suite,
                group=group,
                cron=cron,
                preset=preset,
                mode=mode,
                image=image,
            )
        ),
    )


@main.command()
@with_selectors
@click.pass_context
def jobs(
    ctx: click.Context,
    suite: str | None,
    group: str | None,
    cron: str | None,
    preset: str | None,
    mode: str | None,
    image: str | None,
) -> None:
    """GPU jobs (one server each) of a selection, as {"include": [...]}."""
    _one_selection(group, cron, preset)
    run(
        ctx,
        lambda c: emit(
            commands.jobs(
                c.catalog(),
                suite=suite,
                group=group,
                cron=cron,
                preset=preset,
                mode=mode,
                image=image,
            )
        ),
    )


@main.command()
@click.option("--level", type=click.Choice(["pr", "nightly"]))
@click.option("--suite", help="Accuracy suite (atom, sglang).")
@click.pass_context
def cases(ctx: click.Context, level: str | None, suite: str | None) -> None:
    """Accuracy cases, as a JSON array (one entry per image a case runs on)."""
    run(ctx, lambda c: emit(commands.cases(c.catalog(), level=level, suite=suite)))


@main.command()
@click.argument("entry_id")
@click.option("--mode", help="Server mode for Mesh cells.")
@image_option
@click.option(
    "--kind",
    type=click.Choice(["cell", "job", "case"]),
    help="What the id names, when a cell and a job share it (a one-cell job).",
)
@click.pass_context
def explain(
    ctx: click.Context, entry_id: str, mode: str | None, image: str | None, kind: str | None
) -> None:
    """The exact env and commands of a cell, job or case."""
    run(
        ctx,
        lambda c: click.echo(
            commands.explain(c.catalog(), entry_id, mode=mode, image=image, kind=kind), nl=False
        ),
    )


@main.command(name="summary")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of Markdown tables.")
@click.pass_context
def summary_cmd(ctx: click.Context, as_json: bool) -> None:
    """Configs, cells and jobs per suite, cron group and preset; accuracy cases per level."""

    def work(c: Context) -> None:
        data = summary(c.catalog())
        if as_json:
            emit(data)
        else:
            click.echo(markdown(data), nl=False)

    run(ctx, work)


@main.command(name="plan")
@with_selection
@click.option("--week", is_flag=True, help="Every cron group over a week (the default).")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of a table.")
@click.pass_context
def plan_cmd(
    ctx: click.Context,
    suite: str | None,
    group: str | None,
    cron: str | None,
    preset: str | None,
    mode: str | None,
    week: bool,
    as_json: bool,
) -> None:
    """Jobs, server launches, cells, GPU-hours and wall time: packed and one job per cell."""
    _one_selection(group, cron, preset)
    if week and any(x is not None for x in (suite, group, cron, preset, mode)):
        raise click.UsageError("--week takes no selection")

    def work(c: Context) -> None:
        data = plan(
            c.catalog(), week=week, mode=mode, suite=suite, group=group, cron=cron, preset=preset
        )
        if as_json:
            emit(data)
        else:
            click.echo(format_plan(data), nl=False)

    run(ctx, work)


@main.command(name="render")
@click.pass_context
def render_cmd(ctx: click.Context) -> None:
    """Write every generated file (workflows, matrices, docs) from the catalogs."""

    def work(c: Context) -> None:
        outputs = render_all(checked(c.catalog()))
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
        outputs = render_all(checked(c.catalog()))
        diffs = drift(c.root, outputs)
        if diffs:
            sys.stdout.write("".join(diffs))
            raise CheckFailed(
                f"{len(diffs)} generated file(s) differ from the catalogs; "
                f"run `{FIX}` and commit the result"
            )
        click.echo(f"check: {len(outputs)} generated files match the catalogs")

    run(ctx, work)


def checked(catalog: Catalog) -> Catalog:
    """Render and check refuse a catalog with lint errors, before writing anything."""
    bad = lint_errors(lint(catalog))
    if bad:
        first = bad[0]
        raise CheckFailed(
            f"{first.loc}: {first.rule} {first.name}: {first.message} "
            f"({len(bad)} lint error(s); run `sglang-ci lint`)"
        )
    return catalog


@main.command(name="lint")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of text.")
@click.pass_context
def lint_cmd(ctx: click.Context, as_json: bool) -> None:
    """Named rules over both catalogs; exit 1 on any error that is not waived."""

    def work(c: Context) -> int:
        catalog = c.catalog()
        findings = lint(catalog)
        if as_json:
            sys.stdout.write(format_json(findings))
        else:
            click.echo(format_text(findings, catalog), nl=False)
        return 1 if lint_errors(findings) else 0

    run(ctx, work)
