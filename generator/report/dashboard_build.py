"""`results report`: the dashboard of the history and its latest run, built in --out."""

from __future__ import annotations

from pathlib import Path

import click

from generator.catalog.regression import policy_for
from generator.report.printout import Warnings
from generator.report.report import REPORT, Latest, report
from generator.results.admit import read_manifest
from generator.results.expected import load_expected
from generator.results.load import open_store, with_history_fallback
from generator.results.output import check_dir, replace_dir
from generator.results.provenance import run_info, title
from generator.results.record import ResultsError
from generator.results.verdicts_json import load as load_verdicts
from generator.verdicts.compare import compare

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.results.record import Problem


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
