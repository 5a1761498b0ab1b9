"""`results summarize`, `compare`, `admit` and `report`: a night's run summed up, judged
against the history, written into it, and the dashboard built again."""

from __future__ import annotations

import os
from pathlib import Path

import click

from generator.catalog import load as load_catalog
from generator.catalog.regression import policy_for
from generator.confirm import outcome, tracked, triaged
from generator.core import jsonread
from generator.report.compare_text import markdown as compare_markdown
from generator.report.dashboard import REPORT, Latest, report
from generator.report.printout import Output, Warnings, warn_problems
from generator.report.summarize import Around, summarize
from generator.report.summary_markdown import markdown
from generator.results.admit import admit
from generator.results.admit_images import Images
from generator.results.expected import load_expected
from generator.results.load import open_store, with_history_fallback
from generator.results.manifest_doc import read_manifest
from generator.results.output_dirs import check_dir, replace_dir
from generator.results.provenance import run_info, title
from generator.results.record import Problem, ResultsError
from generator.results.runs import MANIFEST, name_of
from generator.results.verdicts_json import load as load_verdicts
from generator.verdicts.ab import load_outcomes as load_confirmation
from generator.verdicts.compare import compare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.confirm.tracked import Tracked
    from generator.verdicts.comparison import Comparison


def _issues_of(path: Path) -> list[Tracked]:
    try:
        return tracked.read(jsonread.load(path))
    except (OSError, ValueError) as exc:
        msg = f"{path}: cannot read the tracking issues: {exc}"
        raise ResultsError(msg) from exc


def print_summary(
    *,
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
) -> int:
    """The run is named by the job's GITHUB_* variables, by an admitted run's manifest, else
    by its records."""
    output = Output("results summarize", as_json, out, max_bytes)
    output.check()
    around = Around(
        outcomes=outcome.load(outcomes_path) if outcomes_path else {},
        issues=_issues_of(issues_path) if issues_path else [],
        dashboard=dashboard,
        awaiting_ab=awaiting_ab,
    )
    wanted = load_expected(expected, jobs_path) if expected else None
    judged = load_verdicts(verdicts) if verdicts is not None else None
    manifest = read_manifest(run_dirs[0] / MANIFEST) if len(run_dirs) == 1 else None
    store = open_store(current=run_dirs)
    warn_problems(store.problems)
    if manifest is not None and "GITHUB_RUN_ID" not in os.environ:
        run, judged = manifest["run"], judged or manifest.get("verdicts")
    else:
        run = run_info(store, os.environ)
    data = summarize(store, expected=wanted, verdicts=judged, run=run, around=around)
    output.emit(data, markdown(data))
    return 0


def print_comparison(
    root: Path,
    *,
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
) -> int:
    """The comparison's exit code: 1 on a regression, a failed gate, missing data."""
    output = Output("results compare", as_json, out, max_bytes)
    output.check()
    policy, source = policy_for(root, policy_path)
    wanted = load_expected(expected, jobs_path) if expected else None
    confirmed = load_confirmation(confirmation) if confirmation is not None else None
    marks = triaged.load(triage_path) if triage_path is not None else []
    warn = Warnings()

    def attempt(broken: Mapping[str, Problem]) -> Comparison:
        store = open_store(
            current=current, name=run_name, history=history, covering=policy.history, broken=broken
        )
        warn(store.problems)
        return compare(
            store,
            policy,
            source=source,
            current=name_of(current, run_name),
            expected=wanted,
            outcomes=confirmed,
            invalid=triaged.invalid([*triaged.in_runs(store.manifests), *marks]),
        )

    result = with_history_fallback(history, attempt)
    data = result.as_dict()
    output.emit(data, compare_markdown(data))
    return result.exit_code


def admit_run(
    root: Path,
    *,
    run_dirs: tuple[Path, ...],
    history: Path,
    name: str,
    expected: tuple[Path, ...],
    verdicts: Path | None,
    jobs_path: Path | None,
    confirmation: Path | None,
) -> int:
    """Images of the repositories the catalogs under `root` declare are admitted."""
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


def build_dashboard(
    root: Path,
    *,
    history: Path,
    current: tuple[Path, ...],
    site: Path,
    verdicts: Path | None,
    expected: tuple[Path, ...],
    policy_path: Path | None,
) -> int:
    """The latest run's verdicts: --verdicts, else its manifest's, else compared here."""
    check_dir(site, REPORT)
    warn = Warnings()

    def build(broken: Mapping[str, Problem]) -> int:
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

    return with_history_fallback(history, build)
