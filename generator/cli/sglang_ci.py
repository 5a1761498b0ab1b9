"""The `sglang-ci` command: its options and its command groups, each in its own module.

load -> expand -> lint | render | plan | explain. Exit codes: 0 success, 1 a failed check
(drift, lint), 2 bad input, 3 a bug (`--debug` shows the traceback): generator/context.py.
"""

from __future__ import annotations

from pathlib import Path

import click

from generator.cli import catalog_commands, plan_commands, render_commands
from generator.cli.confirm_commands import confirm_group
from generator.cli.dispatch_commands import dispatch_group
from generator.cli.results_commands import results_group
from generator.cli.verify_commands import verify_group
from generator.context import Context


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


for command in (
    *catalog_commands.COMMANDS,
    *plan_commands.COMMANDS,
    *render_commands.COMMANDS,
    results_group,
    confirm_group,
    verify_group,
    dispatch_group,
):
    main.add_command(command)
