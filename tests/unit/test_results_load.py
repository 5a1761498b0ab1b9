"""generator/results/load.py: runs into a store, and a history whose compact file breaks."""

from __future__ import annotations

import duckdb
import pytest

from generator.results.load import broken_compacts, open_store, with_history_fallback
from tests.results_gen import Point, Run, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from generator.results.record import Problem


def test_newest_keeps_the_runs_that_started_last(tmp_path: Path) -> None:
    for day, name in ((0, "zz-oldest"), (1, "aa-newest")):
        run = Run(day=day)
        write_run(tmp_path, run, [point_record(run, Point())], name=name)
    store = open_store(history=tmp_path, newest=1)
    assert store.rows("SELECT run FROM runs") == [{"run": "aa-newest"}]


def test_a_compact_file_duckdb_cannot_read_is_named(tmp_path: Path) -> None:
    (tmp_path / "run-a").mkdir()
    (tmp_path / "run-a" / "records-0.parquet").write_text("not parquet")
    [(run, problem)] = broken_compacts(tmp_path).items()
    assert (run, problem.path) == ("run-a", str(tmp_path / "run-a" / "records-0.parquet"))
    assert problem.reason.startswith("not a readable compact file (")
    assert problem.reason.endswith("); the run's JSON files are read")


def test_the_history_is_read_again_without_its_broken_compact_files(tmp_path: Path) -> None:
    (tmp_path / "run-a").mkdir()
    (tmp_path / "run-a" / "records-0.parquet").write_text("not parquet")
    tried: list[list[str]] = []

    def attempt(broken: Mapping[str, Problem]) -> int:
        tried.append(sorted(broken))
        if not broken:
            msg = "bad page"
            raise duckdb.IOException(msg)
        return len(broken)

    assert with_history_fallback(tmp_path, attempt) == 1
    assert tried == [[], ["run-a"]]
    with pytest.raises(duckdb.IOException):
        with_history_fallback(None, attempt)
