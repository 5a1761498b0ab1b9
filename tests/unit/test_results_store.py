from __future__ import annotations

from generator.results.load import open_store
from tests.results_gen import Point, Run, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_runs_are_ordered_by_their_records_start_not_their_names(tmp_path: Path) -> None:
    for day, name in ((0, "zz-oldest"), (1, "aa-newest")):
        run = Run(day=day)
        write_run(tmp_path, run, [point_record(run, Point())], name=name)
    store = open_store(history=tmp_path)
    assert store.rows("SELECT run, rank FROM runs ORDER BY rank") == [
        {"run": "aa-newest", "rank": 1},
        {"run": "zz-oldest", "rank": 2},
    ]
