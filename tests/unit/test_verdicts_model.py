"""generator/verdicts/model.py: an event's id, the same on every night for the same data."""

from __future__ import annotations

from generator.results.history import PointKey
from generator.verdicts.model import Change, event_id
from tests.series_gen import KEY


def test_an_events_id_is_its_server_first_bad_run_and_point() -> None:
    assert event_id(KEY, "77") == "ev-04c4259f4a95"
    assert event_id(KEY, "77", PointKey(isl=1, osl=2, concurrency=3)) == "ev-2699e8a8c6c3"
    assert event_id(KEY, "78") != event_id(KEY, "77")


def test_a_change_as_json() -> None:
    assert Change(change=-0.1, low=-0.2, high=0.0).as_dict() == {
        "change": -0.1, "low": -0.2, "high": 0.0,
    }  # fmt: skip
