"""generator/results/jobs.py: why a GPU job left no record, as GitHub saw it."""

from __future__ import annotations

import json

import pytest

from generator.results.jobs import load_jobs
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

FAILED_STEP = {"name": "Run the job in its container", "conclusion": "failure"}
JOBS = [
    {"name": "j1 / bench", "status": "completed", "conclusion": "success"},
    {"name": "j2 / bench", "status": "completed", "conclusion": "failure",
     "steps": [{"name": "Set up", "conclusion": "success"}, FAILED_STEP]},
    {"name": "j3 / bench", "status": "queued", "conclusion": None},
    {"name": "j4 / bench", "status": "completed", "conclusion": "cancelled"},
]  # fmt: skip


def test_a_job_that_did_not_succeed_says_why_by_its_matrix_id(tmp_path: Path) -> None:
    (tmp_path / "jobs.jsonl").write_text("\n".join(json.dumps(j) for j in JOBS) + "\n\n")
    assert load_jobs(tmp_path / "jobs.jsonl") == {
        "j2": "job failure at step 'Run the job in its container'",
        "j3": "job never finished (queued)",
        "j4": "job cancelled",
    }


def test_the_apis_own_shape_reads_too(tmp_path: Path) -> None:
    (tmp_path / "jobs.json").write_text(json.dumps({"jobs": JOBS[2:3]}))
    assert load_jobs(tmp_path / "jobs.json") == {"j3": "job never finished (queued)"}


def test_a_line_that_is_not_json_is_named(tmp_path: Path) -> None:
    (tmp_path / "jobs.jsonl").write_text('{"name": "j1"}\nnope\n')
    with pytest.raises(ResultsError, match=r"jobs.jsonl:2: not a JSON object: "):
        load_jobs(tmp_path / "jobs.jsonl")
