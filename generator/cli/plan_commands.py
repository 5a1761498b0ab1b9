"""`sglang-ci summary|plan|diff`: what the catalogs cost, over a week or for a selection,
and what a change runs on the GPUs."""

from __future__ import annotations

import click

from generator.cli.options import emit, one_selection, selection_options, show, single
from generator.context import Context, run
from generator.dispatch.diff import diff
from generator.dispatch.diff import text as diff_text
from generator.expand.select import query
from generator.plan.change import change_text, expanded_at_base, week_change
from generator.plan.coverage import markdown, summary
from generator.plan.text import format_text as format_plan
from generator.plan.week import plan_query, plan_week


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
            data = {"base": base, "merge_base": commit, **week_change(before, expanded)}
            show(data, as_json, change_text)
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


COMMANDS = (summary_cmd, plan_cmd, diff_cmd)
