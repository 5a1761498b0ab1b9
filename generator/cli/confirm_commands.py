"""`sglang-ci confirm ...`: click options only; generator/confirm does the work.

    matrix    the confirmation matrix of a run (JSON on stdout, the summary to --markdown)
    aa        the A/A matrix of selected jobs: the A/B's own noise, measured on a runner label
    noise     pool the A/A jobs' measured noise into the history (ab-noise/<label>.json)
    outcomes  the A/B jobs' outcomes from their documents, and compare's --confirmation file
    triage    the marks people left on the tracking issues (labels, commands), read through gh
    issues    open, comment on, reopen and close the tracking issues (gh)

Exit codes: 0 success; 1 gh failed; 2 bad input.
"""

from __future__ import annotations

from typing import Any

import click

from generator.cli.options import DIR, FILE, policy_option
from generator.confirm.ab_jobs import pool_noise, print_aa, print_matrix, print_outcomes
from generator.confirm.issue_sync import read_triage, sync_issues
from generator.confirm.tracking_issue import BOT
from generator.context import run_at_root

confirm_policy_option = policy_option("the catalog under --root")


@click.group(name="confirm")
def confirm_group() -> None:
    """A/B confirmation of suspected regressions, bisection, tracking issues."""


@confirm_group.command(name="matrix")
@click.option("--verdicts", type=FILE, required=True, help="`results compare --json` output.")
@click.option("--matrix", "matrices", type=FILE, multiple=True, required=True,
              help="The run's job matrix (JSON), as the select step wrote it.")  # fmt: skip
@click.option("--history", type=DIR, required=True, help="History directory.")
@click.option("--markdown", type=FILE, help="Append the summary section to FILE.")
@confirm_policy_option
@click.pass_context
def matrix_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """The confirmation matrix: one A/B job per new suspected event's server."""
    run_at_root(ctx, lambda root: print_matrix(root, **opts))


@confirm_group.command(name="aa")
@click.option("--matrix", "matrices", type=FILE, multiple=True, required=True,
              help="The selected jobs (sglang-ci dispatch benchmark's matrix).")  # fmt: skip
@confirm_policy_option
@click.pass_context
def aa_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """The A/A matrix: each selected job's image on both sides of its confirmation job,
    restarting, to measure the A/B's own noise on its runner label (JSON on stdout)."""
    run_at_root(ctx, lambda root: print_aa(root, **opts))


@confirm_group.command(name="noise")
@click.option("--matrix", "matrices", type=FILE, multiple=True, required=True,
              help="The A/A matrix (sglang-ci confirm aa).")  # fmt: skip
@click.option("--results", type=DIR, required=True, help="Where the A/A jobs' results are.")
@click.option("--history", type=DIR, required=True, help="History directory (its runs).")
@click.option("--run", "run_name", required=True, help="The A/A run's name (its GitHub run).")
@click.pass_context
def noise_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """Pool each A/A job's measured noise into its runner label's file beside the
    history's runs (ab-noise/<label>.json), which later A/Bs on that label are judged
    with; one line per label on stdout."""
    run_at_root(ctx, lambda _root: pool_noise(**opts))


@confirm_group.command(name="outcomes")
@click.option("--matrix", "matrices", type=FILE, multiple=True, required=True,
              help="The confirmation matrix the run emitted.")  # fmt: skip
@click.option("--results", type=DIR, help="Where the A/B jobs' results were downloaded.")
@click.option("--confirmation", type=FILE, help="Write compare's --confirmation file (.json).")
@click.option("--json", "as_json", is_flag=True, help="The outcomes as JSON on stdout.")
@click.pass_context
def outcomes_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """The outcome of each A/B job, judged from its documents."""
    run_at_root(ctx, lambda _root: print_outcomes(**opts))


bot_option = click.option(
    "--bot",
    default=BOT,
    show_default=True,
    help="The login gh names as the author of the issues this workflow's token opens: only "
    "its issues are tracking issues.",
)


@confirm_group.command(name="triage")
@click.option("--verdicts", type=FILE, required=True, help="The run's compare JSON.")
@click.option("--repo", required=True, help="OWNER/REPO of the tracking issues.")
@click.option("--out", type=FILE, required=True, help="Write the marks to a .json file.")
@bot_option
@confirm_policy_option
@click.pass_context
def triage_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """The triage marks (acknowledged, invalid, fixed) people left on the tracking issues of
    the run's events and on every open one; written even when gh fails (with its error)."""
    run_at_root(ctx, lambda root: read_triage(root, **opts))


@confirm_group.command(name="issues")
@click.option("--verdicts", type=FILE, required=True, help="The run's final compare JSON.")
@click.option("--outcomes", "outcomes_path", type=FILE, help="`confirm outcomes --json` output.")
@click.option("--repo", required=True, help="OWNER/REPO of the tracking issues.")
@click.option("--run-url", default=None, help="The workflow run's URL, linked from the issues.")
@click.option("--out", type=FILE, help="Write what was done (event -> issue, action) to a .json.")
@click.option(
    "--triage",
    "triage_path",
    type=FILE,
    help="The run's triage marks (confirm triage --out): an event marked invalid or fixed "
    "leaves its issue as the person left it.",
)
@bot_option
@confirm_policy_option
@click.pass_context
def issues_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """Open, comment on, reopen and close one tracking issue per confirmed event (gh)."""
    run_at_root(ctx, lambda root: sync_issues(root, **opts))
