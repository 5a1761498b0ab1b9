"""generator/results/readmission.py: a GitHub run the history holds already."""

from __future__ import annotations

import json

import pytest

from generator.results.readmission import admitted_before
from generator.results.record import ResultsError
from generator.results.runs import MANIFEST, MANIFEST_SCHEMA

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def record(folder: Path, run_id: str, text: str = "") -> tuple[Path, str]:
    folder.mkdir(parents=True, exist_ok=True)
    data = {"provenance": {"github": {"run_id": run_id}}, "text": text}
    (folder / "r.json").write_text(json.dumps(data))
    return folder / "r.json", "r.json"


def admitted(history: Path, name: str, run_id: str, text: str = "") -> Path:
    run = history / name
    record(run, run_id, text)
    manifest = {"schema": MANIFEST_SCHEMA, "run": {"id": run_id}, "records": {"files": ["r.json"]}}
    (run / MANIFEST).write_text(json.dumps(manifest))
    return run


def test_no_history_or_no_run_of_that_id_is_no_earlier_admission(tmp_path: Path) -> None:
    new = [record(tmp_path / "artifact", "77")]
    assert admitted_before(tmp_path / "history", tmp_path / "history" / "n", new) is None
    admitted(tmp_path / "history", "2026-11-01-benchmark-55-1", "55")
    assert admitted_before(tmp_path / "history", tmp_path / "history" / "n", new) is None


def test_the_same_records_again_are_the_earlier_run(tmp_path: Path) -> None:
    earlier = admitted(tmp_path / "history", "2026-11-01-benchmark-77-1", "77")
    new = [record(tmp_path / "artifact", "77")]
    assert admitted_before(tmp_path / "history", tmp_path / "history" / "n", new) == earlier


def test_other_records_of_a_run_admitted_already_are_refused(tmp_path: Path) -> None:
    admitted(tmp_path / "history", "2026-11-01-benchmark-77-1", "77")
    new = [record(tmp_path / "artifact", "77", text="re-run")]
    with pytest.raises(ResultsError, match="holds GitHub run 77 already, with other records"):
        admitted_before(tmp_path / "history", tmp_path / "history" / "n", new)


def test_a_target_that_is_not_an_admitted_run_is_never_rewritten(tmp_path: Path) -> None:
    (tmp_path / "history" / "n").mkdir(parents=True)
    new = [record(tmp_path / "artifact", "77")]
    with pytest.raises(ResultsError, match="already exists; results admit never rewrites a run"):
        admitted_before(tmp_path / "history", tmp_path / "history" / "n", new)
