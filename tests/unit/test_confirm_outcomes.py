"""The A/B jobs' documents judged again (generator/confirm/outcomes.py)."""

from __future__ import annotations

from typing import Any, cast

from generator.confirm.outcome import MISSING, Outcome
from generator.confirm.outcomes import DOCUMENT, confirmation_file, judge_entry, latest, measurement
from generator.core import ab_verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.abjob import TurnDocument


def document(attempt: str | None, order: int) -> TurnDocument:
    return {"schema": DOCUMENT, "event": "ev-1", "job_id": "j", "run_attempt": attempt,
            "step": 0, "order": order, "mode": "restart", "side": "A", "repeat": 1,
            "point": "p1", "images": {}, "record": None}  # fmt: skip


def test_only_the_latest_attempts_documents_count() -> None:
    docs = [document("1", 1), document("2", 2), document(None, 3)]
    assert latest(docs) == [docs[1]]
    assert latest([docs[2]]) == [docs[2]]


def test_a_turn_has_metrics_only_when_its_record_is_valid() -> None:
    turn: dict[str, Any] = {"side": "A", "repeat": "2", "point": "p1"}
    valid = {"validity": {"valid": True}, "metrics": {"output_throughput_per_gpu": 10.0}}
    assert measurement(cast("TurnDocument", {**turn, "record": valid})) == ab_verdict.Measurement(
        side="A", repeat=2, point="p1", metrics={"output_throughput_per_gpu": 10.0}
    )
    invalid = {**valid, "validity": {"valid": False}}
    assert measurement(cast("TurnDocument", {**turn, "record": invalid})).metrics is None
    assert measurement(cast("TurnDocument", turn)).metrics is None


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
