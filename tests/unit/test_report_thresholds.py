"""`results thresholds` (generator/report/thresholds.py): per accuracy case, Tukey's lower
fence less a margin over the history's valid runs, never under the floor, and the table."""

from __future__ import annotations

import pytest

from generator.catalog.regression import ThresholdRule
from generator.report.thresholds import Proposal, ThresholdProposals, markdown, thresholds
from generator.results.load import open_store
from tests.results_gen import Run, case_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.results.store import Store

SCORES = (0.90, 0.98, 0.94, 0.92, 0.96)  # Q1 0.92, median 0.94, Q3 0.96


def history(tmp_path: Path) -> Store:
    """Five nights of `gsm8k` (its threshold raised on the last), a night of `young`, an
    error of `broken`, and a current run that is not history."""
    for day, score in enumerate(SCORES):
        run = Run(day=day)
        records = [case_record(run, "gsm8k", score=score, threshold=0.9 if day < 4 else 0.91)]
        if day == 4:
            records.append(case_record(run, "young", score=0.8, threshold=0.7))
            records.append(case_record(run, "gsm8k-err", score=0.1, status="error"))
        write_run(tmp_path / "history", run, records)
    now = write_run(tmp_path / "now", Run(day=5), [case_record(Run(day=5), "gsm8k", score=0.1)])
    return open_store(current=[now], history=tmp_path / "history")


def test_the_proposal_is_the_lower_fence_less_the_margin(tmp_path: Path) -> None:
    data = thresholds(history(tmp_path), ThresholdRule(floor=0.0, margin=0.01, min_runs=5))
    assert [c["case"] for c in data["cases"]] == ["gsm8k", "young"]  # not the error, not now
    gsm8k = data["cases"][0]
    assert gsm8k["min_acceptance_rate"] is None  # no MTP
    found = gsm8k["threshold"]
    assert found["metric"] == "exact_match,flexible-extract"
    assert (found["runs"], found["current"], found["lowest"]) == (5, 0.91, 0.90)
    assert (found["q1"], found["median"], found["q3"]) == pytest.approx((0.92, 0.94, 0.96))
    assert found["iqr"] == pytest.approx(0.04)
    assert found["proposed"] == 0.85  # 0.92 - 1.5 x 0.04 - 0.01, rounded to 4 places
    assert found["note"] is None
    assert {k: data[k] for k in ("schema", "floor", "margin", "min_runs")} == {
        "schema": "sglang-ci/thresholds/1", "floor": 0.0, "margin": 0.01, "min_runs": 5,
    }  # fmt: skip


def test_never_under_the_floor_and_none_without_enough_runs(tmp_path: Path) -> None:
    data = thresholds(history(tmp_path), ThresholdRule(floor=0.88, margin=0.01, min_runs=2))
    gsm8k, young = (c["threshold"] for c in data["cases"])
    assert gsm8k["proposed"] == 0.88
    assert (young["runs"], young["proposed"], young["iqr"]) == (1, None, 0.0)
    assert young["note"] == "fewer than 2 runs: no proposal"


def proposal(
    *, runs: int = 8, current: float = 0.9, proposed: float | None = 0.9188, note: str | None = None
) -> Proposal:
    return {"metric": "score", "runs": runs, "q1": 0.9475, "median": 0.95, "q3": 0.96,
            "iqr": 0.0125, "lowest": 0.9, "current": current, "proposed": proposed,
            "note": note}  # fmt: skip


def test_the_table_has_a_row_per_gate_proposed() -> None:
    data: ThresholdProposals = {"schema": "sglang-ci/thresholds/1", "method": "M", "floor": 0.0,
                        "margin": 0.01, "min_runs": 5, "cases": [
        {"case": "a|b", "threshold": proposal(), "min_acceptance_rate": proposal(current=0.3)},
        {"case": "young", "threshold": proposal(runs=1, proposed=None, note="too few"),
         "min_acceptance_rate": None},
    ]}  # fmt: skip
    assert markdown(data) == [
        "## Proposed accuracy thresholds (not applied)",
        "",
        "Method: M, floor 0, margin 0.01, at least 5 runs.",
        "",
        "| case | gate | runs | Q1 | median | Q3 | now | proposed | note |",
        "|---|---|---|---|---|---|---|---|---|",
        "| `a\\|b` | threshold | 8 | 0.9475 | 0.9500 | 0.9600 | 0.9000 | 0.9188 |  |",
        "| `a\\|b` | min_acceptance_rate | 8 | 0.9475 | 0.9500 | 0.9600 | 0.3000 | 0.9188 |  |",
        "| young | threshold | 1 | 0.9475 | 0.9500 | 0.9600 | 0.9000 | - | too few |",
    ]


def test_a_history_without_a_case_says_so() -> None:
    data: ThresholdProposals = {"schema": "sglang-ci/thresholds/1", "method": "M", "floor": 0.5,
                        "margin": 0.0, "min_runs": 3, "cases": []}  # fmt: skip
    assert markdown(data)[-1] == "No accuracy case in the history."
    assert markdown(data)[2] == "Method: M, floor 0.5, margin 0, at least 3 runs."
