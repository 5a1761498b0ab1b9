"""The triage marks a history holds (generator/confirm/triaged.py)."""

from __future__ import annotations

import json

import pytest

from generator.confirm import triage
from generator.confirm.triage import Mark
from generator.confirm.triaged import in_runs, invalid, load
from generator.results.record import ResultsError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def mark(event: str, state: str, at: str) -> Mark:
    return Mark(event=event, issue=1, state=state, reason=None, note=None, by="alice", at=at,
                source="label")  # fmt: skip


def test_an_event_is_invalid_while_its_newest_mark_says_so() -> None:
    marks = [
        mark("ev-1", "invalid", "2026-01-05"),
        mark("ev-1", "fixed", "2026-01-06"),
        mark("ev-2", "acknowledged", "2026-01-05"),
        mark("ev-2", "invalid", "2026-01-07"),
    ]
    assert invalid(marks) == frozenset({"ev-2"})


def test_the_marks_kept_with_the_runs_are_read_and_a_bad_file_is_none(tmp_path: Path) -> None:
    for run, text in (("run-1", json.dumps(triage.document("run-1", [mark("ev-1", "fixed", "t")]))),
                      ("run-2", "{not json")):  # fmt: skip
        (tmp_path / run / "confirmation").mkdir(parents=True)
        (tmp_path / run / "confirmation" / triage.FILE).write_text(text)
    manifests = {r: str(tmp_path / r / "manifest.json") for r in ("run-1", "run-2", "run-3")}
    assert in_runs(manifests) == [mark("ev-1", "fixed", "t")]


def test_a_triage_file_that_is_no_triage_document_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"schema": "sglang-ci/issues/1"}')
    with pytest.raises(ResultsError) as caught:
        load(path)
    assert str(caught.value) == f"{path}: not a triage document (sglang-ci/triage/1)"
