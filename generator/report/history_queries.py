"""`results events`, `diff`, `thresholds` and `replay`: questions put to the history."""

from __future__ import annotations

import sys
from typing import TypeVar

import click

from generator.catalog.regression import policy_for
from generator.core.logtext import one_line
from generator.jsonio import dumps
from generator.report import eventlog, rundiff
from generator.report.printout import Output, Warnings, warn_problems
from generator.report.thresholds import markdown as thresholds_markdown
from generator.report.thresholds import thresholds
from generator.results.load import open_store, with_history_fallback
from generator.verdicts.rejudge import replay_history

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from datetime import datetime
    from pathlib import Path

    from generator.results.record import Problem
    from generator.results.store import Store

Doc = TypeVar("Doc")


def _from_history(history: Path, query: Callable[[Store], Doc]) -> Doc:
    """`query` on the history's store, warning of each of its problems once."""
    warn = Warnings()

    def attempt(broken: Mapping[str, Problem]) -> Doc:
        store = open_store(history=history, broken=broken)
        warn(store.problems)
        return query(store)

    return with_history_fallback(history, attempt)


def print_events(
    *, history: Path, since: datetime | None, config: str | None, as_json: bool
) -> int:
    data = _from_history(history, lambda store: eventlog.query(store, since=since, config=config))
    Output("results events", as_json).emit(data, eventlog.markdown(data))
    return 0


def print_run_diff(*, run_a: str, run_b: str, history: Path, as_json: bool) -> int:
    store = rundiff.two_runs(history, run_a, run_b)
    warn_problems(store.problems)
    data = rundiff.diff(store, run_a, run_b)
    Output("results diff", as_json).emit(data, rundiff.markdown(data))
    return 0


def print_thresholds(root: Path, *, history: Path, policy_path: Path | None, as_json: bool) -> int:
    policy, _ = policy_for(root, policy_path)
    data = _from_history(history, lambda store: thresholds(store, policy.thresholds))
    Output("results thresholds", as_json).emit(data, thresholds_markdown(data))
    return 0


def print_replay(root: Path, *, history: Path, policy_path: Path | None, as_json: bool) -> int:
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
