"""generator/verdicts/rejudge.py: what must agree between a night's verdicts and the same
run judged again."""

from __future__ import annotations

from generator.verdicts.rejudge import _differences, summary

REGRESSED = {"config": "c", "pair": "1x2", "concurrency": 4, "verdict": "regression"}
WROTE = {
    "events": [{"id": "ev-1", "state": "confirmed", "first_bad_run": "r2", "last_good_run": "r1"}],
    "points": [
        REGRESSED,
        {"config": "c", "pair": "1x2", "concurrency": 8, "verdict": "missing"},
    ],
}


def test_events_fates_and_measured_points_verdicts_are_what_must_agree() -> None:
    assert summary(WROTE) == {
        "events": {"ev-1": ("confirmed", "r2", "r1", None)},
        "points": {("c", "1x2", 4): "regression"},  # missing data is the night's matrix's
    }


def test_each_difference_is_a_line() -> None:
    again = summary({"events": [], "points": [{**REGRESSED, "verdict": "ok"}]})
    assert _differences(summary(WROTE), again) == [
        "event ev-1: ('confirmed', 'r2', 'r1', None) -> None",
        "point ('c', '1x2', 4): regression -> ok",
    ]
