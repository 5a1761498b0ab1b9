"""generator/results/artifact_files.py: an artifact's files sorted for `results admit`."""

from __future__ import annotations

import json

import pytest

from generator.results.artifact_files import attachments, sort_records
from generator.results.record import ResultsError
from tests.results_gen import Point, Run, point_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_records_others_and_broken_records_are_told_apart(tmp_path: Path) -> None:
    (tmp_path / "job").mkdir()
    (tmp_path / "job" / "p.json").write_text(json.dumps(point_record(Run(day=0), Point())))
    (tmp_path / "summary.md").write_text("# summary")
    (tmp_path / "broken.json").write_text('{"schema": "sglang-ci/record/1"}')
    records, others, problems = sort_records([tmp_path])
    assert (records, others) == ([(tmp_path / "job" / "p.json", "job/p.json")], ["summary.md"])
    assert [p.path for p in problems] == [str(tmp_path / "broken.json")]


def test_a_run_of_many_directories_prefixes_each_ones_name(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "notes.txt").write_text("")
    assert sort_records([tmp_path / "a", tmp_path / "b"]) == (
        [],
        ["a/notes.txt", "b/notes.txt"],
        [],
    )


def test_the_confirmations_json_documents_that_parse_are_kept(tmp_path: Path) -> None:
    (tmp_path / "ab").mkdir()
    (tmp_path / "ab" / "outcome.json").write_text("[]")
    (tmp_path / "ab" / "torn.json").write_text("[")
    (tmp_path / "ab" / "log.txt").write_text("")
    assert attachments(tmp_path / "ab") == (
        [(tmp_path / "ab" / "outcome.json", "confirmation/outcome.json")],
        ["confirmation/log.txt", "confirmation/torn.json"],
    )
    assert attachments(None) == ([], [])
    with pytest.raises(ResultsError, match="confirmation directory is not a directory"):
        attachments(tmp_path / "none")
