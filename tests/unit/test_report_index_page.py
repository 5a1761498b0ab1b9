"""The dashboard index's table of verdicts not `ok` and the issues the latest run closed
(generator/report/index_page.py)."""

from __future__ import annotations

from generator.confirm.tracked import Tracked
from generator.report.confirmations import Confirmations
from generator.report.index_page import closed, not_ok_rows
from generator.results.verdicts_json import read


def test_each_metric_that_moved_is_a_row_then_each_curve() -> None:
    ttft = {"metric": "median_ttft_ms", "verdict": "regression", "change": 0.2}
    tput = {"metric": "output_throughput_per_gpu", "verdict": "ok", "change": 0.01}
    verdicts = read({
        "current": "r2",
        "points": [
            {"config": "ds", "isl": 1024, "osl": 1024, "concurrency": 4, "verdict": "regression",
             "metrics": {"median_ttft_ms": ttft, "output_throughput_per_gpu": tput}},
            {"config": "ds", "isl": 1024, "osl": 1024, "concurrency": 8, "verdict": "ok",
             "metrics": {}},
        ],
        "curves": [{"config": "ds", "isl": 1024, "osl": 1024, "verdict": "suspected",
                    "change": -0.06}],
    })  # fmt: skip
    assert list(not_ok_rows(verdicts, {"ds": "DeepSeek"})) == [
        {"verdict": "regression", "config": "DeepSeek", "pair": "1024x1024", "concurrency": 4,
         "metric": "TTFT", "change": "+20.0%", "note": ""},
        {"verdict": "suspected", "config": "DeepSeek", "pair": "1024x1024",
         "concurrency": "curve", "metric": "tok/s/GPU at fixed interactivity",
         "change": "-6.0%", "note": ""},
    ]  # fmt: skip


def test_the_issues_closed_are_those_the_latest_run_closed() -> None:
    def issue(event: str, action: str | None) -> Tracked:
        return Tracked(event=event, number=1, url=None, open=action != "closed", action=action)

    one, two, three = issue("e1", "closed"), issue("e2", "closed"), issue("e3", None)
    found = Confirmations(issues={"e1": ("r2", one), "e2": ("r1", two), "e3": ("r2", three)})
    assert closed(found, "r2") == [one]
