"""`results compare` as Markdown (generator/report/compare_text.py, templates/verdicts.md.j2):
the outcome, the policy in words, the counts and each point not plainly ok."""

from __future__ import annotations

from typing import Any, cast

from generator.report.compare_text import markdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.verdicts_json import VerdictsDoc


def compare(**extra: Any) -> VerdictsDoc:
    policy = {"window": 30, "min_runs": 3, "min_change": {"output_throughput_per_gpu": 0.05},
              "significance": {"suspect": 1.5, "confirm": 3.0, "point": 3.5},
              "on_regression": "fail", "on_gate": "fail", "source": "defaults"}  # fmt: skip
    ttft = {"metric": "median_ttft_ms", "verdict": "suspected", "current": 110.0,
            "baseline": 100.0, "change": 0.1, "band": None, "runs": 5, "note": None}  # fmt: skip
    point = {"config": "ds", "pair": "1024x1024", "concurrency": 4, "verdict": "suspected",
             "reason": None, "metrics": {"median_ttft_ms": ttft}}  # fmt: skip
    data = {"current": "run-2", "history_runs": 5, "policy": policy, "confirmed": [],
            "gates": [], "reason": None, "missing": 0, "exit_code": 0, "events": [],
            "counts": {"points": {"ok": 1, "suspected": 1}}, "missing_cases": [], "curves": [],
            "points": [point], "problems": [], **extra}  # fmt: skip
    return cast("VerdictsDoc", data)


def test_a_suspicion_reads_as_a_pass_with_its_point_in_the_table() -> None:
    assert markdown(compare()) == [
        "## Verdicts: run-2 against 5 history run(s)",
        "",
        "**pass**: no new regression",
        "",
        (
            "Each server's level and each point beyond it against the runs before (at most 30, at "
            "least 3), in standard errors of the history's noise: one run 1.5 worse is suspected, "
            "a stretch of runs 3 worse (or the A/B) confirms, a point 3.5; a confirmed change of "
            "tok/s/GPU 5% fails the run. Policy from defaults."
        ),
        "",
        "- events: none",
        "- points: suspected 1, ok 1",
        "- curves: none",
        "",
        "### Points",
        "",
        "| verdict | config | ISLxOSL | conc | metric | now | baseline | change | note |",
        "|---|---|---|---|---|---|---|---|---|",
        "| suspected | ds | 1024x1024 | 4 | TTFT | 110.00 | 100.00 | +10.0% | 5 runs |",
        "",
    ]


def test_a_failed_gate_and_an_unreadable_file_end_the_text() -> None:
    gate = {"gate": "accuracy", "kind": "case", "id": "gsm8k", "message": "0.91 below 0.93"}
    lines = markdown(compare(gates=[gate], exit_code=1, points=[], problems=["a.json: bad"]))
    assert lines[2] == "**FAIL**: 1 failed gate(s) (fail)"
    assert lines[-7:] == [
        "### Failed gates",
        "",
        "- accuracy: case `gsm8k`: 0.91 below 0.93",
        "",
        "### Files that are not valid records",
        "",
        "- `a.json: bad`",
    ]
