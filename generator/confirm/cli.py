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

import json
import sys
from pathlib import Path
from typing import Any

import click

from generator.catalog import load as load_catalog
from generator.catalog.regression import policy_for
from generator.confirm import events, issues, matrix, noise, outcomes, tracked, triage, triaged
from generator.context import run_at_root
from generator.expand.rederive import job_for
from generator.jsonio import dumps
from generator.launch.abjob import check_confirmation
from generator.launch.exits import InputError
from generator.results.expected import matrix_entries
from generator.results.output import JSON, check_file, write_file
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from generator.catalog.model import Catalog

_file = click.Path(dir_okay=False, path_type=Path)
_dir = click.Path(file_okay=False, path_type=Path)
policy_option = click.option(
    "--policy",
    "policy_path",
    type=_file,
    help="A YAML/JSON file with the regression section (default: the catalog under --root).",
)


def _entries(paths: tuple[Path, ...]) -> list[dict[str, Any]]:
    """The job entries (those with points) of the matrix files."""
    return [e for path in paths for e in matrix_entries(path) if "points" in e]


def _deriver(catalog: Catalog) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """The caller check's derivation of a job entry from this checkout's catalogs."""

    def derive(entry: Mapping[str, Any]) -> dict[str, Any]:
        return job_for(catalog, entry, "this checkout", named=False)

    return derive


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
        derive = _deriver(load_catalog(root))
        entries, skipped = matrix.build(found, _entries(matrices), history, policy, derive)
        _append(markdown, matrix.markdown(entries, skipped))
        sys.stdout.write(json.dumps({"include": entries}, separators=(",", ":")) + "\n")
        return 0

    run_at_root(ctx, work)


@confirm_group.command(name="aa")
@click.option("--matrix", "matrices", type=_file, multiple=True, required=True,
              help="The selected jobs (sglang-ci dispatch benchmark's matrix).")  # fmt: skip
@policy_option
@click.pass_context
def aa_cmd(ctx: click.Context, matrices: tuple[Path, ...], policy_path: Path | None) -> None:
    """The A/A matrix: each selected job's image on both sides of its confirmation job,
    restarting, to measure the A/B's own noise on its runner label (JSON on stdout)."""

    def work(root: Path) -> int:
        policy, _ = policy_for(root, policy_path)
        entries = matrix.aa_entries(_entries(matrices), policy, _deriver(load_catalog(root)))
        sys.stdout.write(json.dumps({"include": entries}, separators=(",", ":")) + "\n")
        return 0

    run_at_root(ctx, work)


@confirm_group.command(name="noise")
@click.option("--matrix", "matrices", type=_file, multiple=True, required=True,
              help="The A/A matrix (sglang-ci confirm aa).")  # fmt: skip
@click.option("--results", type=_dir, required=True, help="Where the A/A jobs' results are.")
@click.option("--history", type=_dir, required=True, help="History directory (its runs).")
@click.option("--run", "run_name", required=True, help="The A/A run's name (its GitHub run).")
@click.pass_context
def noise_cmd(
    ctx: click.Context, matrices: tuple[Path, ...], results: Path, history: Path, run_name: str
) -> None:
    """Pool each A/A job's measured noise into its runner label's file beside the
    history's runs (ab-noise/<label>.json), which later A/Bs on that label are judged
    with; one line per label on stdout."""

    def work(_root: Path) -> int:
        try:
            entries = [check_confirmation(e, "matrix") for e in _entries(matrices)]
        except InputError as exc:
            raise ResultsError(str(exc)) from exc
        docs = outcomes.documents(results) if results.is_dir() else []
        lines = []
        for entry in entries:
            conf = entry["confirmation"]
            if conf["a"]["image_digest"] != conf["b"]["image_digest"]:
                msg = f"matrix: {entry['id']} is an A/B of two images, not an A/A"
                raise ResultsError(msg)
            mine = [
                d
                for d in docs
                if d.get("job_id") == entry["id"] and d.get("event") == conf["event"]
            ]
            found = noise.sums([outcomes.measurement(d) for d in outcomes.latest(mine)])
            measured = {"run": run_name, "job_id": entry["id"], **found}
            path, data = noise.add(history, str(entry["runner"]), measured)
            noise.save(path, data)
            got = data["noise"]
            shown = (
                "not yet measurable (too few points or repeats)"
                if got is None
                else f"launch {got['launch']:.4f}, point {got['point']:.4f} ({got['source']})"
            )
            lines.append(f"{path}: {shown}")
        sys.stdout.write("\n".join(lines) + "\n")
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


bot_option = click.option(
    "--bot",
    default=issues.BOT,
    show_default=True,
    help="The login gh names as the author of the issues this workflow's token opens: only "
    "its issues are tracking issues.",
)


def _warn(line: str) -> None:
    click.echo(f"warning: {line}", err=True)


@confirm_group.command(name="triage")
@click.option("--verdicts", type=_file, required=True, help="The run's compare JSON.")
@click.option("--repo", required=True, help="OWNER/REPO of the tracking issues.")
@click.option("--out", type=_file, required=True, help="Write the marks to a .json file.")
@bot_option
@policy_option
@click.pass_context
def triage_cmd(
    ctx: click.Context,
    verdicts: Path,
    repo: str,
    out: Path,
    bot: str,
    policy_path: Path | None,
) -> None:
    """The triage marks (acknowledged, invalid, fixed) people left on the tracking issues of
    the run's events and on every open one; written even when gh fails (with its error)."""

    def work(root: Path) -> int:
        check_file(out, JSON, "confirm triage")
        policy, _ = policy_for(root, policy_path)
        found = events.load(verdicts)
        marks: list[triage.Mark] = []
        error: str | None = None
        try:
            if policy.confirm.issues:
                gh = issues.Gh(repo)
                listed = issues.issues(
                    gh,
                    policy.confirm.issue_label,
                    {e.id for e in found.events},
                    bot=bot,
                    servers=frozenset(e.server.key() for e in found.events),
                    open_issues=True,
                    warn=_warn,
                )
                marks = triage.marks(listed, lambda n: gh.api_list(f"issues/{n}/events"), _warn)
                for m in triage.newest(marks).values():
                    click.echo(f"{m.event} (#{m.issue}): {m.text}")
            return 0
        except issues.IssueError as exc:
            error = str(exc)
            raise
        finally:
            doc = {**triage.document(found.current, marks), "error": error}
            write_file(out, dumps(doc), JSON, "confirm triage")

    run_at_root(ctx, work)


@confirm_group.command(name="issues")
@click.option("--verdicts", type=_file, required=True, help="The run's final compare JSON.")
@click.option("--outcomes", "outcomes_path", type=_file, help="`confirm outcomes --json` output.")
@click.option("--repo", required=True, help="OWNER/REPO of the tracking issues.")
@click.option("--run-url", default=None, help="The workflow run's URL, linked from the issues.")
@click.option("--out", type=_file, help="Write what was done (event -> issue, action) to a .json.")
@click.option(
    "--triage",
    "triage_path",
    type=_file,
    help="The run's triage marks (confirm triage --out): an event marked invalid or fixed "
    "leaves its issue as the person left it.",
)
@bot_option
@policy_option
@click.pass_context
def issues_cmd(
    ctx: click.Context,
    verdicts: Path,
    outcomes_path: Path | None,
    repo: str,
    run_url: str | None,
    out: Path | None,
    triage_path: Path | None,
    bot: str,
    policy_path: Path | None,
) -> None:
    """Open, comment on, reopen and close one tracking issue per confirmed event (gh)."""

    def work(root: Path) -> int:
        if out is not None:
            check_file(out, JSON, "confirm issues")
        policy, _ = policy_for(root, policy_path)
        found = events.load(verdicts)
        enabled = policy.confirm.issues
        known = outcomes.load(outcomes_path) if outcomes_path and enabled else {}
        marks = triage.newest(triaged.load(triage_path) if triage_path else [])
        settled = frozenset(e for e, m in marks.items() if m.state in triage.SETTLED)
        listed: list[issues.Issue] = []
        done: list[tracked.Tracked] = []
        error: str | None = None
        try:  # what gh did is written to --out even when gh fails half way
            if not enabled:
                click.echo("tracking issues are off (regression.confirm.issues)")
                return 0
            gh = issues.Gh(repo)
            label = policy.confirm.issue_label
            listed = issues.issues(
                gh,
                label,
                {e.id for e in found.events},
                bot=bot,
                servers=frozenset(e.server.key() for e in found.events),
                warn=_warn,
            )
            run = issues.RunInfo(name=found.current, url=run_url)
            actions = issues.plan(found, known, listed, run, settled)
            for line in issues.apply(gh, actions, label, done):
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
