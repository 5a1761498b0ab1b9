"""`sglang-ci results ...`: click options only; the modules of generator/results (the store),
generator/verdicts, generator/confirm and generator/report do the work.

Exit codes: 0 success; 1 a confirmed regression or a failed gate (compare, under a policy
that fails); 2 bad input (no such directory, a broken policy or matrix file).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from generator.catalog import load as load_catalog
from generator.catalog.regression import policy_for
from generator.context import run_at_root
from generator.jsonio import dumps
from generator.launch.logtext import one_line
from generator.report.markdown import DEFAULT_MAX_BYTES, fit
from generator.results.output import JSON, MARKDOWN, check_dir, check_file, replace_dir, write_file
from generator.results.provenance import run_info, title
from generator.results.record import Problem, ResultsError
from generator.results.runs import MANIFEST, name_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from generator.verdicts.compare import Comparison

_dir = click.Path(file_okay=False, path_type=Path)
_file = click.Path(dir_okay=False, path_type=Path)


def _check_out(out: Path | None, as_json: bool, what: str) -> None:
    """Refuse an --out FILE before any work (output.check_file)."""
    if out is not None:
        check_file(out, JSON if as_json else MARKDOWN, what)


def _emit(
    data: dict[str, Any],
    lines: list[str],
    *,
    as_json: bool,
    out: Path | None,
    max_bytes: int,
    what: str,
) -> None:
    """JSON, or Markdown cut to `max_bytes`, on stdout; the same in full to `out` (JSON
    with --json, else Markdown)."""
    if as_json:
        text = dumps(data)
        if out is not None:
            write_file(out, text, JSON, what)
        sys.stdout.write(text)
        return
    if out is not None:
        write_file(out, "\n".join(lines) + "\n", MARKDOWN, what)
    sys.stdout.write(fit(lines, max_bytes, str(out) if out else None))


def _warn_problems(problems: list[Any]) -> None:
    for problem in problems:
        click.echo(f"warning: {one_line(str(problem))}", err=True)


class _Warnings:
    """Warnings of one command, each printed once (a command that reads the history again
    without a broken compact file meets the same problems twice)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, problems: list[Any]) -> None:
        for problem in problems:
            self.one(str(problem))

    def one(self, problem: str) -> None:
        if problem not in self.seen:
            self.seen.add(problem)
            _warn_problems([problem])


json_option = click.option("--json", "as_json", is_flag=True, help="JSON instead of Markdown.")
out_option = click.option(
    "--out",
    type=_file,
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
policy_option = click.option(
    "--policy",
    "policy_path",
    type=_file,
    help="A YAML/JSON file with the regression section (default: catalogs/benchmark.yaml "
    "under --root, else the defaults).",
)
expected_option = click.option(
    "--expected",
    type=_file,
    multiple=True,
    help="The run's job and case matrices (JSON, as the select job made them): what it was "
    "expected to report.",
)
jobs_option = click.option(
    "--jobs",
    "jobs_path",
    type=_file,
    help="GitHub's jobs of the run (gh api .../jobs --jq '.jobs[]'): why a job left no record.",
)
history_option = click.option(
    "--history", type=_dir, required=True, help="History directory: one run directory per run."
)


@click.group(name="results")
def results_group() -> None:
    """Result records: run summaries, regression verdicts, thresholds, a dashboard."""


@results_group.command(name="summarize")
@click.argument("run_dirs", nargs=-1, required=True, type=_dir)
@expected_option
@jobs_option
@click.option(
    "--verdicts", type=_file, help="The run's verdicts (results compare --json --out FILE)."
)
@click.option(
    "--outcomes",
    "outcomes_path",
    type=_file,
    help="The A/B outcomes (sglang-ci confirm outcomes --json): each event's A/B result.",
)
@click.option(
    "--issues",
    "issues_path",
    type=_file,
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
def summarize_cmd(
    ctx: click.Context,
    run_dirs: tuple[Path, ...],
    expected: tuple[Path, ...],
    jobs_path: Path | None,
    verdicts: Path | None,
    outcomes_path: Path | None,
    issues_path: Path | None,
    dashboard: str | None,
    awaiting_ab: bool,
    as_json: bool,
    out: Path | None,
    max_bytes: int,
) -> None:
    """The run summary of RUN_DIR... (one run, possibly several job directories): the
    outcome, provenance, then the tables. The run is named by the GITHUB_* variables of
    the job, by the manifest of an admitted run, else by its records."""
    from generator.confirm import outcome, tracked
    from generator.launch import jsonread
    from generator.report.summarize import Around, markdown, summarize
    from generator.results.admit import read_manifest
    from generator.results.expected import load_expected
    from generator.results.load import open_store
    from generator.results.verdicts_json import load as load_verdicts

    def issues_of(path: Path) -> list[Any]:
        try:
            return tracked.read(jsonread.load(path))
        except (OSError, ValueError) as exc:
            msg = f"{path}: cannot read the tracking issues: {exc}"
            raise ResultsError(msg) from exc

    def work(_root: Path) -> int:
        _check_out(out, as_json, "results summarize")
        around = Around(
            outcomes=outcome.load(outcomes_path) if outcomes_path else {},
            issues=issues_of(issues_path) if issues_path else [],
            dashboard=dashboard,
            awaiting_ab=awaiting_ab,
        )
        wanted = load_expected(expected, jobs_path) if expected else None
        judged = load_verdicts(verdicts) if verdicts is not None else None
        manifest = read_manifest(run_dirs[0] / MANIFEST) if len(run_dirs) == 1 else None
        store = open_store(current=run_dirs)
        _warn_problems(store.problems)
        if manifest is not None and "GITHUB_RUN_ID" not in os.environ:
            run, judged = manifest["run"], judged or manifest.get("verdicts")
        else:
            run = run_info(store, os.environ)
        data = summarize(store, expected=wanted, verdicts=judged, run=run, around=around)
        _emit(
            data,
            markdown(data),
            as_json=as_json,
            out=out,
            max_bytes=max_bytes,
            what="results summarize",
        )
        return 0

    run_at_root(ctx, work)


@results_group.command(name="compare")
@history_option
@click.option(
    "--current", type=_dir, multiple=True, required=True, help="The run directory to judge."
)
@click.option(
    "--name",
    "run_name",
    help="The run's name in the history (the select job's run_name); default: the name of "
    "the --current directory.",
)
@expected_option
@jobs_option
@policy_option
@click.option(
    "--confirmation",
    type=_file,
    help="The night's A/B outcomes (sglang-ci confirm outcomes --confirmation FILE): a "
    "confirmed event is a regression now, a cleared one's points are ok.",
)
@click.option(
    "--triage",
    "triage_path",
    type=_file,
    help="The run's triage marks (sglang-ci confirm triage --out FILE); with the history's, "
    "an event marked invalid never fails the run.",
)
@json_option
@out_option
@max_option
@click.pass_context
def compare_cmd(
    ctx: click.Context,
    history: Path,
    current: tuple[Path, ...],
    run_name: str | None,
    expected: tuple[Path, ...],
    jobs_path: Path | None,
    policy_path: Path | None,
    confirmation: Path | None,
    triage_path: Path | None,
    as_json: bool,
    out: Path | None,
    max_bytes: int,
) -> None:
    """Verdicts of a run's points and curves against the history, and its events; exit 1
    on a regression this run confirms or a failed gate (unless the policy only warns), on
    missing data, and for a run without any record."""
    from generator.confirm import triaged
    from generator.report.compare_text import markdown
    from generator.results.expected import load_expected
    from generator.results.load import open_store, with_history_fallback
    from generator.verdicts.ab import load_outcomes as load_confirmation
    from generator.verdicts.compare import compare

    def work(root: Path) -> int:
        _check_out(out, as_json, "results compare")
        policy, source = policy_for(root, policy_path)
        wanted = load_expected(expected, jobs_path) if expected else None
        outcomes = load_confirmation(confirmation) if confirmation is not None else None
        marks = triaged.load(triage_path) if triage_path is not None else []
        warn = _Warnings()

        def attempt(broken: Mapping[str, Problem]) -> Comparison:
            store = open_store(
                current=current,
                name=run_name,
                history=history,
                covering=policy.history,
                broken=broken,
            )
            warn(store.problems)
            return compare(
                store,
                policy,
                source=source,
                current=name_of(current, run_name),
                expected=wanted,
                outcomes=outcomes,
                invalid=triaged.invalid([*triaged.in_runs(store.manifests), *marks]),
            )

        result = with_history_fallback(history, attempt)
        data = result.as_dict()
        _emit(
            data,
            markdown(data),
            as_json=as_json,
            out=out,
            max_bytes=max_bytes,
            what="results compare",
        )
        return result.exit_code

    run_at_root(ctx, work)


@results_group.command(name="replay")
@history_option
@policy_option
@json_option
@click.pass_context
def replay_cmd(ctx: click.Context, history: Path, policy_path: Path | None, as_json: bool) -> None:
    """Judge every admitted run of the history again from its data alone (the runs before
    it, its night's A/B outcome) and compare with the verdicts its night wrote; exit 1
    when one differs."""
    from generator.verdicts.rejudge import replay_history

    def work(root: Path) -> int:
        policy, source = policy_for(root, policy_path)
        found = replay_history(history, policy, source)
        if as_json:
            sys.stdout.write(dumps([r.as_dict() for r in found]))
        else:
            for r in found:
                said = "same" if r.same else "differs: " + "; ".join(r.differences)
                click.echo(f"{r.run}: {one_line(said)}")
            click.echo(f"replayed {len(found)} runs: {sum(not r.same for r in found)} differ")
        return 0 if all(r.same for r in found) else 1

    run_at_root(ctx, work)


@results_group.command(name="report")
@history_option
@click.option(
    "--current", type=_dir, multiple=True, help="The latest run (default: the newest history run)."
)
@click.option(
    "--out",
    "site",
    type=_dir,
    required=True,
    help="Site directory: new, empty, or a site this command built (replaced whole).",
)
@click.option(
    "--verdicts",
    type=_file,
    help="The latest run's verdicts (default: its manifest's, else compare runs here).",
)
@expected_option
@policy_option
@click.pass_context
def report_cmd(
    ctx: click.Context,
    history: Path,
    current: tuple[Path, ...],
    site: Path,
    verdicts: Path | None,
    expected: tuple[Path, ...],
    policy_path: Path | None,
) -> None:
    """A static dashboard (plotly) of the history and the latest run."""
    from generator.report.report import REPORT, Latest, report
    from generator.results.admit import read_manifest
    from generator.results.expected import load_expected
    from generator.results.load import open_store, with_history_fallback
    from generator.results.verdicts_json import load as load_verdicts
    from generator.verdicts.compare import compare

    def work(root: Path) -> int:
        check_dir(site, REPORT)
        warn = _Warnings()
        return with_history_fallback(history, lambda broken: build(root, broken, warn))

    def build(root: Path, broken: Mapping[str, Problem], warn: _Warnings) -> int:
        judged = load_verdicts(verdicts) if verdicts is not None else None
        store = open_store(current=current, history=history, broken=broken)
        warn(store.problems)
        name = current[0].resolve().name if current else store.promote_latest()
        if name is None:
            msg = f"{history}: no run with a record, nothing to report"
            raise ResultsError(msg)
        manifest = read_manifest(Path(store.manifests[name])) if name in store.manifests else None
        if judged is None and manifest is not None:
            judged = manifest.get("verdicts")
        if judged is None:
            policy, source = policy_for(root, policy_path)
            wanted = load_expected(expected) if expected else None
            judged = compare(store, policy, source=source, current=name, expected=wanted).as_dict()
        run = manifest["run"] if manifest else run_info(store, {})
        latest = Latest(name=name, title=title(run, name), url=run.get("url"), verdicts=judged)
        pages: list[int] = []
        replace_dir(site, REPORT, lambda new: pages.append(report(store, latest, new, warn.one)))
        click.echo(f"report: {pages[0]} pages in {site}")
        return 0

    run_at_root(ctx, work)


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
def events_cmd(
    ctx: click.Context,
    history: Path,
    since: datetime | None,
    config: str | None,
    as_json: bool,
) -> None:
    """What regressed, when, by how much, and what happened to it: every event the
    history's admitted runs reported, newest first (docs/results.md)."""
    from generator.report.eventlog import markdown, query
    from generator.results.load import open_store, with_history_fallback

    def work(_root: Path) -> int:
        warn = _Warnings()

        def attempt(broken: Mapping[str, Problem]) -> dict[str, Any]:
            store = open_store(history=history, broken=broken)
            warn(store.problems)
            return query(store, since=since, config=config)

        data = with_history_fallback(history, attempt)
        _emit(data, markdown(data), as_json=as_json, out=None, max_bytes=DEFAULT_MAX_BYTES,
              what="results events")  # fmt: skip
        return 0

    run_at_root(ctx, work)


@results_group.command(name="diff")
@click.argument("run_a")
@click.argument("run_b")
@history_option
@json_option
@click.pass_context
def diff_cmd(ctx: click.Context, run_a: str, run_b: str, history: Path, as_json: bool) -> None:
    """Two runs of the history side by side: per config what each ran (digest, versions,
    commits, catalog commit, runner), per point each metric in both and the change from
    RUN_A to RUN_B (docs/results.md)."""
    from generator.report.rundiff import diff, markdown, two_runs

    def work(_root: Path) -> int:
        store = two_runs(history, run_a, run_b)
        _warn_problems(store.problems)
        data = diff(store, run_a, run_b)
        _emit(data, markdown(data), as_json=as_json, out=None, max_bytes=DEFAULT_MAX_BYTES,
              what="results diff")  # fmt: skip
        return 0

    run_at_root(ctx, work)


@results_group.command(name="thresholds")
@history_option
@policy_option
@json_option
@click.pass_context
def thresholds_cmd(
    ctx: click.Context, history: Path, policy_path: Path | None, as_json: bool
) -> None:
    """Proposed accuracy thresholds per case from the history (never applied)."""
    from generator.report.thresholds import markdown, thresholds
    from generator.results.load import open_store, with_history_fallback

    def work(root: Path) -> int:
        policy, _ = policy_for(root, policy_path)
        warn = _Warnings()

        def attempt(broken: Mapping[str, Problem]) -> dict[str, Any]:
            store = open_store(history=history, broken=broken)
            warn(store.problems)
            return thresholds(store, policy.thresholds)

        data = with_history_fallback(history, attempt)
        _emit(
            data,
            markdown(data),
            as_json=as_json,
            out=None,
            max_bytes=DEFAULT_MAX_BYTES,
            what="results thresholds",
        )
        return 0

    run_at_root(ctx, work)


@results_group.command(name="admit")
@click.argument("run_dirs", nargs=-1, required=True, type=_dir)
@click.option(
    "--history",
    type=_dir,
    required=True,
    help="History directory the run goes into (created when absent).",
)
@click.option("--name", required=True, help="The run directory's name in the history.")
@expected_option
@click.option("--verdicts", type=_file, help="The run's verdicts (results compare --json --out).")
@jobs_option
@click.option(
    "--confirmation",
    type=_dir,
    help="The run's A/B confirmation documents (kept as confirmation/, JSON only).",
)
@click.pass_context
def admit_cmd(
    ctx: click.Context,
    run_dirs: tuple[Path, ...],
    history: Path,
    name: str,
    expected: tuple[Path, ...],
    verdicts: Path | None,
    jobs_path: Path | None,
    confirmation: Path | None,
) -> None:
    """Write RUN_DIR... into the history as NAME: its records (refused whole unless every
    one validates and every image is of an image repository the catalogs under --root
    declare; records whose image is not pinned by digest are left out), a manifest and a
    compact file; an existing run is never rewritten, and a GitHub run the history holds
    already is not admitted again (exit 0 when it holds these very records, 2 otherwise)."""
    from generator.results.admit import Images, admit

    def work(root: Path) -> int:
        catalog = load_catalog(root)
        repositories = dict.fromkeys(r for m in catalog.server_modes for r in m.image_repositories)
        done = admit(
            run_dirs,
            history,
            name,
            expected=expected,
            verdicts=verdicts,
            jobs=jobs_path,
            confirmation=confirmation,
            images=Images(
                repositories=tuple(repositories),
                pull_requests=(catalog.image_build.repository,) if catalog.image_build else (),
            ),
            environ=os.environ,
        )
        others = len(done.left_out) - len(done.not_pinned)
        left = f"; left out {others} other files" if others else ""
        if done.not_pinned:
            left += f"; left out {len(done.not_pinned)} records whose image is not pinned by digest"
        if done.again:
            click.echo(f"already admitted: {done.path} holds these {done.records} records")
            return 0
        click.echo(f"admitted {done.records} records as {done.path}{left}")
        return 0

    run_at_root(ctx, work)
