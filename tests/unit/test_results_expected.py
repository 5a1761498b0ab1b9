"""generator/results/expected.py: the points and cases a run's matrices expected, and the
ones it did not report."""

from __future__ import annotations

import json

import pytest

from generator.results.expected import (
    counts,
    empty_reason,
    load_expected,
    matrix_entries,
    missing_cases,
    missing_jobs,
    missing_points,
)
from generator.results.load import open_store
from generator.results.record import ResultsError
from tests.results_gen import Point, Run, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

JOB = "ds-fp8-tp8-1024x1024"  # the job and point ids of tests.results_gen's records
MATRIX = {
    "include": [
        {"id": JOB, "config": "ds-fp8-tp8", "runner": "mi355", "image": "rocm/x:nightly",
         "points": [{"id": f"ds-fp8-tp8-1024-1024-{c}", "isl": 1024, "osl": 1024, "concurrency": c}
                    for c in (4, 8)]},
        {"id": "gsm8k-x", "case": "gsm8k"},
    ]
}  # fmt: skip


def test_a_run_that_reported_one_of_two_points_of_its_job_misses_the_other(tmp_path: Path) -> None:
    (tmp_path / "matrix.json").write_text(json.dumps(MATRIX))
    expected = load_expected([tmp_path / "matrix.json"])
    run = Run(day=0)
    store = open_store(current=[write_run(tmp_path / "run", run, [point_record(run, Point())])])
    [(identity, reason)] = missing_points(store, expected)
    assert (identity["concurrency"], identity["image_family"], reason) == (
        8,
        "rocm/x",
        "not reported",
    )
    assert missing_cases(store, expected) == [("gsm8k-x", "gsm8k")]
    assert missing_jobs(store, expected) == []
    assert counts(store, expected) == {
        "points": {"expected": 2, "reported": 1, "missing": 1},
        "cases": {"expected": 1, "reported": 0, "missing": 1},
        "jobs": {"expected": 1, "reported": 1, "missing": 0},
    }


def test_what_is_not_a_matrix_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "three.json").write_text("3")
    with pytest.raises(
        ResultsError, match=r'three.json: a matrix is \{"include": \[...\]\} or a list'
    ):
        matrix_entries(tmp_path / "three.json")
    (tmp_path / "bad.json").write_text(json.dumps([{"id": "j", "points": [{"id": "p"}]}]))
    with pytest.raises(
        ResultsError, match=r"bad.json: entry 0: not a job or case entry \(KeyError"
    ):
        load_expected([tmp_path / "bad.json"])


def test_a_run_without_any_record_says_why_it_fails() -> None:
    assert empty_reason(0, 4) == (
        "the run reported no record of the 4 points expected: every job of it was lost or never ran"
    )
    assert empty_reason(2, 4) is None
