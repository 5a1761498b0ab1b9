"""The run summary's JSON (generator/report/summarize.py): why a record failed, and what
it keeps of the verdicts (every point and curve not plainly ok)."""

from __future__ import annotations

from typing import cast

from generator.report.summarize import _verdicts, _why

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.verdicts_json import VerdictsDoc


def test_a_failure_reads_its_reason_then_the_error_line_that_says_more() -> None:
    assert _why({"reason": None, "status": "server-died", "error": None}) == "status server-died"
    assert _why({"reason": "timeout", "status": "failed", "error": "timeout"}) == "timeout"


def test_the_summary_keeps_the_outcome_and_what_is_not_plainly_ok() -> None:
    ttft = {"metric": "median_ttft_ms", "verdict": "regression", "change": 0.2}
    data = {"current": "r2", "outcome": "fail", "points": [
        {"config": "ds", "isl": 1, "osl": 2, "concurrency": 4, "verdict": "regression",
         "metrics": {"median_ttft_ms": ttft}},
        {"config": "ds", "isl": 1, "osl": 2, "concurrency": 8, "verdict": "improved",
         "metrics": {}},
    ]}  # fmt: skip
    found = _verdicts(cast("VerdictsDoc", data))
    assert found is not None
    assert (found["outcome"], found["curves"]) == ("fail", [])
    assert found["points"] == [
        {"config": "ds", "pair": "1x2", "concurrency": 4, "verdict": "regression",
         "reason": None, "metrics": [ttft]},
    ]  # fmt: skip
    assert _verdicts(None) is None
