"""`sglang-ci cells|jobs|cases|explain`: what the catalogs select, as JSON entries, and
the exact commands of one entry."""

from __future__ import annotations

import click

from generator.catalog.model import LEVELS
from generator.cli.options import emit, image_option, one_selection, selection_options
from generator.context import Context, run
from generator.expand.entries import cell_entry, job_entry
from generator.expand.model import KINDS
from generator.expand.select import cases, image_for, query
from generator.explain import explain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def _listing(what: str) -> Callable[..., None]:
    """The body of `cells` and `jobs`: a selection's cells or jobs as JSON."""

    @selection_options
    @image_option
    @click.pass_context
    def command(ctx: click.Context, /, image: str | None, **selectors: str | None) -> None:
        one_selection(selectors["group"], selectors["cron"], selectors["preset"])

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


cells_cmd = click.command(name="cells", help="Benchmark cells of a selection, as a JSON array.")(
    _listing("cells")
)
jobs_cmd = click.command(
    name="jobs", help='GPU jobs (one server each) of a selection, as {"include": [...]}.'
)(_listing("jobs"))


@click.command(name="cases")
@click.option("--level", type=click.Choice(LEVELS))
@click.option("--suite", help="Accuracy suite (atom, sglang).")
@click.pass_context
def cases_cmd(ctx: click.Context, level: str | None, suite: str | None) -> None:
    """Accuracy cases, as a JSON array: one entry per image a case runs on, at each of its
    levels (or at --level)."""
    run(ctx, lambda c: emit(cases(c.expanded(), level, suite)))


@click.command(name="explain")
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


COMMANDS = (cells_cmd, jobs_cmd, cases_cmd, explain_cmd)
