"""`sglang-ci confirm ...`: click options only; generator/confirm does the work.

    matrix    the confirmation matrix of a run (JSON on stdout, the summary to --markdown)
    outcomes  the A/B jobs' outcomes from their documents, and compare's --confirmation file
    issues    open, comment on and close the tracking issues (gh)

Exit codes: 0 success; 1 gh failed; 2 bad input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from generator.catalog import load as load_catalog
from generator.catalog.regression import policy_for
from generator.confirm import events, issues, matrix, outcomes, tracked
from generator.context import run_at_root
from generator.expand.rederive import job_for
from generator.jsonio import dumps
from generator.launch import jsonread
from generator.launch.abjob import check_confirmation
from generator.launch.errors import InputError
from generator.results.output import JSON, check_file, write_file
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_file = click.Path(dir_okay=False, path_type=Path)
_dir = click.Path(file_okay=False, path_type=Path)
policy_option = click.option(
    "--policy",
    "policy_path",
    type=_file,
    help="A YAML/JSON file with the regression section (default: the catalog under --root).",
)


def _entries(paths: tuple[Path, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in paths:
        try:
            data = jsonread.load(path)
        except (OSError, ValueError) as exc:
            msg = f"{path}: cannot read the matrix: {exc}"
            raise ResultsError(msg) from exc
        if not isinstance(data, dict) or not isinstance(data.get("include"), list):
            msg = f"{path}: not a matrix (an object with an 'include' list)"
            raise ResultsError(msg)
        out += [e for e in data["include"] if isinstance(e, dict) and "points" in e]
    return out


def _append(path: Path | None, lines: list[str]) -> None:
    if path is not None and lines:
        with path.open("a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")


@click.group(name="confirm")
def confirm_group() -> None:
    """A/B confirmation of suspected regressions, bisection, tracking issues."""


@confirm_group.command(name="matrix")
@click.option("--verdicts", type=_file, required=True, help="`results compare --json` output.")
@click.option("--matrix", "matrices", type=_file, multiple=True, required=True,
              help="The run's job matrix (JSON), as the select step wrote it.")  # fmt: skip
@click.option("--history", type=_dir, required=True, help="History directory.")
@click.option("--markdown", type=_file, help="Append the summary section to FILE.")
@policy_option
@click.pass_context
def matrix_cmd(
    ctx: click.Context,
    verdicts: Path,
    matrices: tuple[Path, ...],
    history: Path,
    markdown: Path | None,
    policy_path: Path | None,
) -> None:
    """The confirmation matrix: one A/B job per new suspected event's server."""

    def work(root: Path) -> int:
        policy, _ = policy_for(root, policy_path)
        found = events.load(verdicts)
        catalog = load_catalog(root)

        def derive(entry: Mapping[str, Any]) -> dict[str, Any]:
            return job_for(catalog, entry, "this checkout", named=False)

        entries, skipped = matrix.build(found, _entries(matrices), history, policy, derive)
        _append(markdown, matrix.markdown(entries, skipped))
        sys.stdout.write(json.dumps({"include": entries}, separators=(",", ":")) + "\n")
        return 0

    run_at_root(ctx, work)


@confirm_group.command(name="outcomes")
@click.option("--matrix", "matrices", type=_file, multiple=True, required=True,
              help="The confirmation matrix the run emitted.")  # fmt: skip
@click.option("--results", type=_dir, help="Where the A/B jobs' results were downloaded.")
@click.option("--confirmation", type=_file, help="Write compare's --confirmation file (.json).")
@click.option("--json", "as_json", is_flag=True, help="The outcomes as JSON on stdout.")
@click.pass_context
def outcomes_cmd(
    ctx: click.Context,
    matrices: tuple[Path, ...],
    results: Path | None,
    confirmation: Path | None,
    as_json: bool,
) -> None:
    """The outcome of each A/B job, judged from its documents."""

    def work(_root: Path) -> int:
        if confirmation is not None:
            check_file(confirmation, JSON, "confirm outcomes")
        try:
            entries = [check_confirmation(e, "matrix") for e in _entries(matrices)]
        except InputError as exc:
            raise ResultsError(str(exc)) from exc
        found = outcomes.collect(entries, results)
        if confirmation is not None:
            text = dumps(outcomes.confirmation_file(found))
            write_file(confirmation, text, JSON, "confirm outcomes")
        if as_json:
            sys.stdout.write(dumps([o.as_dict() for o in found]))
        else:
            sys.stdout.write("\n".join(outcomes.markdown(found)) + "\n")
        return 0

    run_at_root(ctx, work)


@confirm_group.command(name="issues")
@click.option("--verdicts", type=_file, required=True, help="The run's final compare JSON.")
@click.option("--outcomes", "outcomes_path", type=_file, help="`confirm outcomes --json` output.")
@click.option("--repo", required=True, help="OWNER/REPO of the tracking issues.")
@click.option("--run-url", default=None, help="The workflow run's URL, linked from the issues.")
@click.option("--out", type=_file, help="Write what was done (event -> issue, action) to a .json.")
@policy_option
@click.pass_context
def issues_cmd(
    ctx: click.Context,
    verdicts: Path,
    outcomes_path: Path | None,
    repo: str,
    run_url: str | None,
    out: Path | None,
    policy_path: Path | None,
) -> None:
    """Open, comment on and close one tracking issue per confirmed event (gh)."""

    def work(root: Path) -> int:
        if out is not None:
            check_file(out, JSON, "confirm issues")
        policy, _ = policy_for(root, policy_path)
        found = events.load(verdicts)
        enabled = policy.confirm.issues
        known = outcomes.load(outcomes_path) if outcomes_path and enabled else {}
        listed: list[issues.Issue] = []
        done: list[tracked.Tracked] = []
        error: str | None = None
        try:  # what gh did is written to --out even when gh fails half way
            if not enabled:
                click.echo("tracking issues are off (regression.confirm.issues)")
                return 0
            gh = issues.Gh(repo)
            label = policy.confirm.issue_label
            listed = issues.issues(gh, label, {e.id for e in found.events})
            run = issues.RunInfo(name=found.current, url=run_url)
            for line in issues.apply(gh, issues.plan(found, known, listed, run), label, done):
                click.echo(line)
            return 0
        except issues.IssueError as exc:
            error = str(exc)
            raise
        finally:
            if out is not None:
                kept = issues.tracked(found, listed, done)
                doc = tracked.document(
                    run=found.current, repository=repo, enabled=enabled, issues=kept, error=error
                )
                write_file(out, dumps(doc), JSON, "confirm issues")

    run_at_root(ctx, work)
