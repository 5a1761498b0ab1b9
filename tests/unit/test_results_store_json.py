"""generator/results/store_json.py: record files read into the store."""

from __future__ import annotations

import json

from generator.results.load import open_store
from tests.results_gen import Point, Run, Shape, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_history_files_that_are_not_records_are_reported_and_skipped(tmp_path: Path) -> None:
    run = Run(day=0)
    root = write_run(tmp_path / "history", run, [point_record(run, Point())])
    (root / "broken.json").write_text("{")
    (root / "nested").mkdir()
    (root / "nested" / "no-id.json").write_text('{"schema": "sglang-ci/record/1", "kind": "point"}')
    (root / "matrix.json").write_text('{"include": []}')
    store = open_store(history=tmp_path / "history")
    assert [str(p) for p in store.problems] == [
        (
            f"{root}/broken.json: not valid JSON: Expecting property name enclosed in double "
            "quotes: line 1 column 2 (char 1)"
        ),
        f"{root}/nested/no-id.json: no id",
    ]
    assert store.count("history") == 1


def test_the_newest_attempt_of_a_point_in_a_run_wins(tmp_path: Path) -> None:
    first = point_record(Run(day=0), Point(), Shape(status="failed"))
    retry = point_record(Run(day=0), Point())
    retry["timings"]["started_at"] = "2026-11-01T05:00:00Z"
    root = tmp_path / "run"
    for name, record in (("a", first), ("b", retry)):
        (root / name).mkdir(parents=True)
        (root / name / "p.json").write_text(json.dumps(record))
    store = open_store(current=[root])
    assert store.rows("SELECT status FROM records") == [{"status": "ok"}]
