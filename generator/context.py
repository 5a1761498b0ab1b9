"""What every `sglang-ci` command shares: the checkout it reads (`--root`), `--debug`, and
the one handler that turns errors into exit codes. Every module of generator/cli/ that
holds commands imports this one; none imports the root command, cli/sglang_ci.py.

Exit codes: 0 success, 1 a failed check (drift, lint, regression), 2 bad input, 3 a bug
(one line; `--debug` shows the traceback).
"""

from __future__ import annotations

import sys
import traceback

import click

from generator.catalog import load
from generator.core.logtext import one_line
from generator.errors import SglangCIError
from generator.expand import expand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from generator.expand.expanded import Expanded

UNEXPECTED_EXIT = 3


class Context:
    """The click context object of every command."""

    def __init__(self, root: Path, debug: bool) -> None:
        self.root = root
        self.debug = debug

    def expanded(self) -> Expanded:
        return expand(load(self.root))


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
        click.echo(f"error: {one_line(str(e))}", err=True)
        code = e.return_code
    except Exception as e:
        if obj.debug:
            traceback.print_exc()
        click.echo(
            f"An unexpected error has occurred: {type(e).__name__}: {one_line(str(e))} "
            "(run with --debug for the traceback)",
            err=True,
        )
        code = UNEXPECTED_EXIT
    ctx.exit(code)


def run_at_root(ctx: click.Context, work: Callable[[Path], int | None]) -> None:
    """`run` for a command that needs only the checkout's path."""
    run(ctx, lambda c: work(c.root))
