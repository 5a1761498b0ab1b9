"""The `sglang-ci` command: its options, render, check and lint; its other commands and
groups, each in its own module.

load -> expand -> lint | render | plan | explain. Exit codes: 0 success, 1 a failed check
(drift, lint), 2 bad input, 3 a bug (`--debug` shows the traceback): generator/context.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from generator.cli import catalog_commands
from generator.cli.confirm_commands import confirm_group
from generator.cli.dispatch_commands import dispatch_group
from generator.cli.results_commands import results_group
from generator.cli.verify_commands import verify_group
from generator.context import Context, run
from generator.errors import CheckFailed
from generator.lint.checks import lint, newer_sglang
from generator.lint.findings import errors as lint_errors
from generator.lint.findings import format_json, format_text, ordered
from generator.render import render
from generator.render.drift import FIX, drift
from generator.render.write import write_all

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=Path(),
              show_default=True,
              help="The checkout to read: its catalogs/ and templates/.")  # fmt: skip
@click.option("--debug", is_flag=True, help="Show tracebacks.")
@click.version_option(package_name="sglang-ci", prog_name="sglang-ci")
@click.pass_context
def main(ctx: click.Context, root: Path, debug: bool) -> None:
    """Benchmark and accuracy CI for SGLang, rendered from catalogs."""
    ctx.obj = Context(root, debug)


for command in (
    *catalog_commands.COMMANDS,
    results_group,
    confirm_group,
    verify_group,
    dispatch_group,
):
    main.add_command(command)


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
