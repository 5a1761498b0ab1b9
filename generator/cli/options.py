"""The options and the JSON output the command groups share."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from generator.jsonio import dumps

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

FILE = click.Path(dir_okay=False, path_type=Path)
DIR = click.Path(file_okay=False, path_type=Path)


def policy_option(default: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return click.option(
        "--policy",
        "policy_path",
        type=FILE,
        help=f"A YAML/JSON file with the regression section (default: {default}).",
    )


def emit(data: object) -> None:
    sys.stdout.write(dumps(data))


def show(data: object, as_json: bool, text: Callable[[Any], str]) -> None:
    """`data` as JSON with --json, else as `text` writes it."""
    if as_json:
        emit(data)
    else:
        click.echo(text(data), nl=False)


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


def one_selection(group: str | None, cron: str | None, preset: str | None) -> None:
    if sum(x is not None for x in (group, cron, preset)) > 1:
        msg = "pass at most one of --group, --cron and --preset"
        raise click.UsageError(msg)
