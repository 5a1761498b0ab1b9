"""Runs into a Store: the run being judged is validated file by file against the JSON
Schema; history runs are read by DuckDB directly.

History runs were validated when they were the current run of their own summary job, and
a year of them is ~157,000 files: jsonschema at ~0.5 ms a record would take over a minute,
where DuckDB types them all in seconds. A history file that is not JSON, or a record
without its identity, validity or start time, is still reported and skipped (store.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

import duckdb

from generator.results.record import Problem, latest_attempts, read_record
from generator.results.runs import COMPACT_GLOB, RunDir, history_dirs, history_run, run_dir, started
from generator.results.store import COMPACT_FILE, CURRENT, HISTORY, Store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

T = TypeVar("T")


def checked(run: RunDir) -> tuple[RunDir, list[Problem]]:
    """`run` with only its valid records (of a point or case, its latest attempt's:
    record.latest_attempts), and the files that are broken records."""
    found: list[tuple[str, dict[str, Any]]] = []
    problems: list[Problem] = []
    for name in run.files:
        record, problem = read_record(Path(name))
        if record is not None:
            found.append((name, record))
        elif problem is not None:
            problems.append(problem)
    good, _ = latest_attempts(found)
    return RunDir(name=run.name, files=tuple(good)), problems


# History runs added at a time while looking for the runs that cover the current servers.
BATCH = 96
_UNCOVERED = """
WITH cur AS (
  SELECT DISTINCT config, coalesce(runner_label, '') AS rl, coalesce(image_family, '') AS fam
  FROM records WHERE role = 'current' AND kind = 'point'
), seen AS (
  SELECT config, coalesce(runner_label, '') AS rl, coalesce(image_family, '') AS fam,
    count(DISTINCT run) AS n
  FROM records WHERE role = 'history' AND kind = 'point' AND valid AND status = 'ok'
    AND config IN (SELECT config FROM cur)
  GROUP BY ALL
)
SELECT count(*) FROM cur LEFT JOIN seen USING (config, rl, fam) WHERE coalesce(n, 0) < ?
"""


def broken_compacts(history: Path) -> dict[str, Problem]:
    """The runs of `history` whose compact file DuckDB cannot read whole (truncated, not
    Parquet, a corrupt page), each with the problem to report; read one file at a time,
    every value decoded, so only after a query over the history failed."""
    con = duckdb.connect()
    found = {}
    for run in history_dirs(history):
        for compact in sorted(run.glob(COMPACT_GLOB)):
            try:
                con.execute(
                    "SELECT count(*), min(hash(COLUMNS(*))) FROM read_parquet(?)", [str(compact)]
                ).fetchone()
            except duckdb.Error as exc:
                reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                msg = f"not a readable compact file ({reason}); the run's JSON files are read"
                found[run.name] = Problem(str(compact), msg)
    return found


def with_history_fallback(history: Path | None, attempt: Callable[[Mapping[str, Problem]], T]) -> T:
    """`attempt({})`; when DuckDB fails on the history's compact files, the same again
    with the runs whose compact file is broken (`broken_compacts`) read from their JSON
    files instead. Costs nothing while every compact file reads."""
    try:
        return attempt({})
    except duckdb.Error:
        broken = broken_compacts(history) if history is not None else {}
        if not broken:
            raise
        return attempt(broken)


def open_store(
    *,
    current: Sequence[Path] = (),
    name: str | None = None,
    history: Path | None = None,
    newest: int | None = None,
    covering: int | None = None,
    broken: Mapping[str, Problem] | None = None,
    before: str | None = None,
) -> Store:
    """A Store with the runs of `history` and the run made of the `current` directories
    (named `name`, as the history names it, else by its directory).
    With `newest`, only the runs that started last; with `covering`, the history runs
    newest first (by name: an admitted run's name starts with its time) until each
    config of the current run, on its runner label and image family, has `covering`
    runs with a valid point, or the history ends; with `before`, only the runs whose
    names sort before it (admitted names start with the run's time)."""
    store = Store()
    own = None
    if current:
        run, problems = checked(run_dir(current, name))
        store.problems.extend(problems)
        store.add(CURRENT, [run])
        own = run.name
    if history is not None:
        dirs = history_dirs(history, exclude=own)
        if before is not None:  # the history as it was when run `before` was judged
            dirs = [d for d in dirs if d.name < before]
        runs = [history_run(d, use_compact=d.name not in (broken or {})) for d in dirs]
        store.problems.extend((broken or {}).values())
        if covering is not None:
            _add_covering(store, runs, covering)
        else:
            store.add(HISTORY, _newest(store, runs, newest))
    return store


def _add_covering(store: Store, runs: list[RunDir], depth: int) -> None:
    pending = sorted(runs, key=lambda r: r.name, reverse=True)
    while pending:
        batch, pending = pending[:BATCH], pending[BATCH:]
        store.add(HISTORY, batch)
        row = store.con.execute(_UNCOVERED, [depth]).fetchone()
        if row is not None and not row[0]:
            return


def _newest(store: Store, runs: list[RunDir], newest: int | None) -> list[RunDir]:
    """With `newest`, only the runs that started last (and any run without a start): an
    admitted run's start is read from its compact file, another's is estimated from its
    first record (runs.started)."""
    if newest is None or len(runs) <= newest:
        return runs
    usable = {r.name: r.compact for r in runs if r.compact and Path(r.compact).name == COMPACT_FILE}
    starts = store.compact_starts(list(usable.values()))
    times = {
        r.name: starts.get(usable[r.name]) if r.name in usable else started(Path(str(r.path)))
        for r in runs
    }
    dated = sorted(((t, name) for name, t in times.items() if t is not None), reverse=True)
    keep = {name for _, name in dated[:newest]} | {n for n, t in times.items() if t is None}
    return [r for r in runs if r.name in keep]
