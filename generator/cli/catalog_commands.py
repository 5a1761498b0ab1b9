"""`sglang-ci cells|jobs|cases|explain|summary|plan|diff`: what the catalogs select, as
JSON entries, the exact commands of one entry, what they cost, and what a change runs."""

from __future__ import annotations

import click

from generator.catalog.catalog_types import LEVELS
from generator.cli.options import emit, image_option, one_selection, selection_options, show, single
from generator.context import Context, run
from generator.dispatch.diff import diff
from generator.dispatch.diff import text as diff_text
from generator.expand.entries import cell_entry, job_entry
from generator.expand.expanded import KINDS
from generator.expand.query import cases, query
from generator.expand.select import image_for
from generator.explain import explain
from generator.plan.change import expanded_at_base, week_change
from generator.plan.change_text import change_text
from generator.plan.coverage import summary
from generator.plan.coverage_markdown import markdown
from generator.plan.text import format_text as format_plan
from generator.plan.week import plan_query, plan_week

TYPE_CHECKING = False


def _listing(what: str, help_text: str) -> click.Command:
    """`cells` and `jobs`: a selection's cells or jobs as JSON."""

    @click.command(name=what, help=help_text)
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


@click.command(name="summary")
@click.option("--json", "as_json", is_flag=True, help="JSON instead of Markdown tables.")
@click.pass_context
def summary_cmd(ctx: click.Context, as_json: bool) -> None:
    """Configs, cells and jobs per suite, cron group and preset; accuracy cases per level."""
    run(ctx, lambda c: show(summary(c.expanded()), as_json, markdown))


@click.command(name="plan")
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
    one_selection(selectors["group"], selectors["cron"], selectors["preset"])
    chosen = any(v is not None for v in selectors.values())
    if (week or base is not None) and chosen:
        msg = f"{'--base' if base is not None else '--week'} takes no selection"
        raise click.UsageError(msg)

    def work(c: Context) -> None:
        expanded = c.expanded()
        if base is not None:
            commit, before = expanded_at_base(c.root, base)
            change = {"base": base, "merge_base": commit, **week_change(before, expanded)}
            show(change, as_json, change_text)
            return
        data = (
            plan_query(query(expanded, **selectors), expanded.catalog)
            if chosen
            else plan_week(expanded)
        )
        show(data, as_json, format_plan)

    run(ctx, work)


@click.command(name="diff")
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


COMMANDS = (
    _listing("cells", "Benchmark cells of a selection, as a JSON array."),
    _listing("jobs", 'GPU jobs (one server each) of a selection, as {"include": [...]}.'),
    cases_cmd,
    explain_cmd,
    summary_cmd,
    plan_cmd,
    diff_cmd,
)
