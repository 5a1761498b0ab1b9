from __future__ import annotations

import json

import pytest

from generator.results.load import open_store
from generator.results.record_columns import IMAGE_FAMILY_SQL
from generator.results.store import Store
from tests.results_gen import Point, Run, Shape, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    ("ref", "family"),
    [
        ("rocm/sgl-dev:nightly", "rocm/sgl-dev"),
        ("rocm/sgl-dev@sha256:abc", "rocm/sgl-dev"),
        ("rocm/sgl-dev:v0.5@sha256:abc", "rocm/sgl-dev"),
        ("registry.local:5000/team/img:tag", "registry.local:5000/team/img"),
        ("registry.local:5000/team/img", "registry.local:5000/team/img"),
        ("lmsysorg/sglang", "lmsysorg/sglang"),
    ],
)
def test_the_image_family_is_the_repository_without_tag_or_digest(ref: str, family: str) -> None:
    row = Store().con.execute(f"SELECT {IMAGE_FAMILY_SQL.format(ref='?')}", [ref]).fetchone()
    assert row == (family,)


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


def test_runs_are_ordered_by_their_records_start_not_their_names(tmp_path: Path) -> None:
    for day, name in ((0, "zz-oldest"), (1, "aa-newest")):
        run = Run(day=day)
        write_run(tmp_path, run, [point_record(run, Point())], name=name)
    store = open_store(history=tmp_path)
    assert store.rows("SELECT run, rank FROM runs ORDER BY rank") == [
        {"run": "aa-newest", "rank": 1},
        {"run": "zz-oldest", "rank": 2},
    ]


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
