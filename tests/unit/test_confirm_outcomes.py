"""The A/B jobs' documents judged again (generator/confirm/outcomes.py)."""

from __future__ import annotations

from typing import Any

from generator.confirm.outcome import MISSING, Outcome
from generator.confirm.outcomes import confirmation_file, judge_entry, latest, measurement
from generator.core import ab_verdict


def test_only_the_latest_attempts_documents_count() -> None:
    docs: list[dict[str, Any]] = [
        {"run_attempt": "1", "n": 1},
        {"run_attempt": "2", "n": 2},
        {"n": 3},
    ]
    assert latest(docs) == [{"run_attempt": "2", "n": 2}]
    assert latest([{"n": 3}]) == [{"n": 3}]


def test_a_turn_has_metrics_only_when_its_record_is_valid() -> None:
    turn: dict[str, Any] = {"side": "A", "repeat": "2", "point": "p1"}
    valid = {"validity": {"valid": True}, "metrics": {"output_throughput_per_gpu": 10.0}}
    assert measurement({**turn, "record": valid}) == ab_verdict.Measurement(
        side="A", repeat=2, point="p1", metrics={"output_throughput_per_gpu": 10.0}
    )
    invalid = {**valid, "validity": {"valid": False}}
    assert measurement({**turn, "record": invalid}).metrics is None
    assert measurement(turn).metrics is None


def test_a_job_without_documents_is_missing() -> None:
    entry: Any = {"id": "job-1", "config": "ds-tp4", "points": [],
                  "confirmation": {"event": "ev-1", "repeats": 3, "candidates": []}}  # fmt: skip
    assert judge_entry(entry, []) == Outcome(
        event="ev-1", job_id="job-1", config="ds-tp4", repeats=3, mode=None, result=MISSING
    )


def test_compare_takes_the_decided_events_only() -> None:
    found = [
        Outcome(event=f"ev-{r}", job_id="j", config="c", mode=None, repeats=3, result=r)
        for r in (ab_verdict.CONFIRMED, ab_verdict.CLEARED, ab_verdict.INCONCLUSIVE, MISSING)
    ]
    assert confirmation_file(found) == [
        {"event": "ev-confirmed", "result": "confirmed"},
        {"event": "ev-cleared", "result": "cleared"},
    ]
