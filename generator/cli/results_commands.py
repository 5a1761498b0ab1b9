"""`sglang-ci results ...`: click options only; generator/report does the work (a night's
run summarized, compared and admitted; the history's dashboard and the questions put to it).

Exit codes: 0 success; 1 a confirmed regression or a failed gate (compare, under a policy
that fails); 2 bad input (no such directory, a broken policy or matrix file).
"""

from __future__ import annotations

from typing import Any

import click

from generator.cli.options import DIR, FILE, policy_option
from generator.context import run_at_root
from generator.report.markdown import DEFAULT_MAX_BYTES

json_option = click.option("--json", "as_json", is_flag=True, help="JSON instead of Markdown.")
out_option = click.option(
    "--out",
    type=FILE,
    help="Also write the full output to FILE: JSON (a .json file) with --json, else Markdown "
    "(a .md file). An existing FILE is replaced only when sglang-ci wrote it.",
)
max_option = click.option(
    "--max-bytes",
    type=click.IntRange(min=1000),
    default=DEFAULT_MAX_BYTES,
    show_default=True,
    help="Cut the Markdown on stdout to this size (GitHub's step summary takes 1 MiB).",
)
results_policy_option = policy_option("catalogs/benchmark.yaml under --root, else the defaults")
expected_option = click.option(
    "--expected",
    type=FILE,
    multiple=True,
    help="The run's job and case matrices (JSON, as the select job made them): what it was "
    "expected to report.",
)
jobs_option = click.option(
    "--jobs",
    "jobs_path",
    type=FILE,
    help="GitHub's jobs of the run (gh api .../jobs --jq '.jobs[]'): why a job left no record.",
)
history_option = click.option(
    "--history", type=DIR, required=True, help="History directory: one run directory per run."
)


@click.group(name="results")
def results_group() -> None:
    """Result records: run summaries, regression verdicts, thresholds, a dashboard."""


@results_group.command(name="summarize")
@click.argument("run_dirs", nargs=-1, required=True, type=DIR)
@expected_option
@jobs_option
@click.option(
    "--verdicts", type=FILE, help="The run's verdicts (results compare --json --out FILE)."
)
@click.option(
    "--outcomes",
    "outcomes_path",
    type=FILE,
    help="The A/B outcomes (sglang-ci confirm outcomes --json): each event's A/B result.",
)
@click.option(
    "--issues",
    "issues_path",
    type=FILE,
    help="The tracking issues (sglang-ci confirm issues --out): each event's issue, and the "
    "recoveries (issues this run closed).",
)
@click.option(
    "--dashboard", help="The dashboard's URL: each event line links its event and its pair page."
)
@click.option(
    "--awaiting-ab",
    is_flag=True,
    help="An A/B job confirms or clears this run's new suspicions after this summary.",
)
@json_option
@out_option
@max_option
@click.pass_context
def summarize_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """The run summary of RUN_DIR... (one run, possibly several job directories): the
    outcome, provenance, then the tables. The run is named by the GITHUB_* variables of
    the job, by the manifest of an admitted run, else by its records."""
    from generator.report.night_run import print_summary

    run_at_root(ctx, lambda _root: print_summary(**opts))


@results_group.command(name="compare")
@history_option
@click.option(
    "--current", type=DIR, multiple=True, required=True, help="The run directory to judge."
)
@click.option(
    "--name",
    "run_name",
    help="The run's name in the history (the select job's run_name); default: the name of "
    "the --current directory.",
)
@expected_option
@jobs_option
@results_policy_option
@click.option("--confirmation", type=FILE,
              help="The night's A/B outcomes (sglang-ci confirm outcomes --confirmation FILE): a "
              "confirmed event is a regression now, a cleared one's points are ok.")  # fmt: skip
@click.option(
    "--triage",
    "triage_path",
    type=FILE,
    help="The run's triage marks (sglang-ci confirm triage --out FILE); with the history's, "
    "an event marked invalid never fails the run.",
)
@json_option
@out_option
@max_option
@click.pass_context
def compare_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """Verdicts of a run's points and curves against the history, and its events; exit 1
    on a regression this run confirms or a failed gate (unless the policy only warns), on
    missing data, and for a run without any record."""
    from generator.report.night_run import print_comparison

    run_at_root(ctx, lambda root: print_comparison(root, **opts))


@results_group.command(name="admit")
@click.argument("run_dirs", nargs=-1, required=True, type=DIR)
@click.option("--history", type=DIR, required=True,
              help="History directory the run goes into (created when absent).")  # fmt: skip
@click.option("--name", required=True, help="The run directory's name in the history.")
@expected_option
@click.option("--verdicts", type=FILE, help="The run's verdicts (results compare --json --out).")
@jobs_option
@click.option(
    "--confirmation",
    type=DIR,
    help="The run's A/B confirmation documents (kept as confirmation/, JSON only).",
)
@click.pass_context
def admit_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """Write RUN_DIR... into the history as NAME: its records (refused whole unless every
    one validates and every image is of an image repository the catalogs under --root
    declare; records whose image is not pinned by digest are left out), a manifest and a
    compact file; an existing run is never rewritten, and a GitHub run the history holds
    already is not admitted again (exit 0 when it holds these very records, 2 otherwise)."""
    from generator.report.night_run import admit_run

    run_at_root(ctx, lambda root: admit_run(root, **opts))


@results_group.command(name="report")
@history_option
@click.option(
    "--current", type=DIR, multiple=True, help="The latest run (default: the newest history run)."
)
@click.option(
    "--out",
    "site",
    type=DIR,
    required=True,
    help="Site directory: new, empty, or a site this command built (replaced whole).",
)
@click.option(
    "--verdicts",
    type=FILE,
    help="The latest run's verdicts (default: its manifest's, else compare runs here).",
)
@expected_option
@results_policy_option
@click.pass_context
def report_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """A static dashboard (plotly) of the history and the latest run."""
    from generator.report.night_run import build_dashboard

    run_at_root(ctx, lambda root: build_dashboard(root, **opts))


@results_group.command(name="events")
@history_option
@click.option(
    "--since",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    help="Only events whose first bad run started on or after this day (YYYY-MM-DD, UTC).",
)
@click.option("--config", "config", help="Only the events of this config (its prefix).")
@json_option
@click.pass_context
def events_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """What regressed, when, by how much, and what happened to it: every event the
    history's admitted runs reported, newest first (docs/results.md)."""
    from generator.report.history_queries import print_events

    run_at_root(ctx, lambda _root: print_events(**opts))


@results_group.command(name="diff")
@click.argument("run_a")
@click.argument("run_b")
@history_option
@json_option
@click.pass_context
def diff_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """Two runs of the history side by side: per config what each ran (digest, versions,
    commits, catalog commit, runner), per point each metric in both and the change from
    RUN_A to RUN_B (docs/results.md)."""
    from generator.report.history_queries import print_run_diff

    run_at_root(ctx, lambda _root: print_run_diff(**opts))


@results_group.command(name="thresholds")
@history_option
@results_policy_option
@json_option
@click.pass_context
def thresholds_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """Proposed accuracy thresholds per case from the history (never applied)."""
    from generator.report.history_queries import print_thresholds

    run_at_root(ctx, lambda root: print_thresholds(root, **opts))


@results_group.command(name="replay")
@history_option
@results_policy_option
@json_option
@click.pass_context
def replay_cmd(ctx: click.Context, /, **opts: Any) -> None:
    """Judge every admitted run of the history again from its data alone (the runs before
    it, its night's A/B outcome) and compare with the verdicts its night wrote; exit 1
    when one differs."""
    from generator.report.history_queries import print_replay

    run_at_root(ctx, lambda root: print_replay(root, **opts))
