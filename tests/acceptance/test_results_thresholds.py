"""`sglang-ci results thresholds`: proposals from the history, never applied."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from generator.cli.sglang_ci import main
from tests.results_gen import Run, case_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCORES = (0.95, 0.96, 0.94, 0.95, 0.97, 0.93, 0.95, 0.96)


def test_a_threshold_is_proposed_from_the_quartiles(tmp_path: Path) -> None:
    for day, score in enumerate(SCORES):
        run = Run(day=day)
        records = [case_record(run, score=score, threshold=0.9)]
        records.append(
            case_record(
                run,
                "gsm8k-mtp",
                spec="mtp",
                draft_tokens=3,
                accept_length=2.5 + day / 100,
                min_acceptance_rate=0.3,
            )
        )
        if day < 3:
            records.append(case_record(run, "young", score=0.8, threshold=0.7))
        write_run(tmp_path / "history", run, records)
    result = CliRunner().invoke(
        main,
        [
            "--root",
            str(tmp_path),
            "results",
            "thresholds",
            "--history",
            str(tmp_path / "history"),
            "--json",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["method"] == "max(floor, Q1 - 1.5 x IQR - margin)"
    cases = {c["case"]: c for c in data["cases"]}
    gsm8k = cases["gsm8k-ds-fp8"]["threshold"]
    # Q1 0.9475, Q3 0.96, IQR 0.0125: 0.9475 - 0.01875 - 0.01
    assert (gsm8k["runs"], gsm8k["current"]) == (8, 0.9)
    assert gsm8k["proposed"] == pytest.approx(0.91875, abs=1e-4)
    rate = cases["gsm8k-mtp"]["min_acceptance_rate"]
    assert rate["runs"] == 8
    assert rate["current"] == 0.3
    # rates 0.5 + day / 300: Q1 0.50583, Q3 0.5175
    assert rate["proposed"] == pytest.approx(0.50583 - 1.5 * 0.011667 - 0.01, abs=1e-4)
    assert cases["young"]["threshold"]["proposed"] is None
    assert cases["young"]["threshold"]["note"] == "fewer than 5 runs: no proposal"
