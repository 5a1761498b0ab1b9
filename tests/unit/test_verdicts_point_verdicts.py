"""generator/verdicts/point_verdicts.py: points marked by the events that moved them, and
each ISL/OSL pair's curve."""

from __future__ import annotations

from dataclasses import replace

import pytest

from generator.results.history import PointKey
from generator.verdicts.model import Change, Event
from generator.verdicts.point_verdicts import curves_of, mark
from tests.series_gen import KEY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.verdicts_json import MetricDoc

THROUGHPUT = "output_throughput_per_gpu"
A = PointKey(isl=1024, osl=1024, concurrency=4)
B = PointKey(isl=1024, osl=1024, concurrency=8)
C = PointKey(isl=8192, osl=1024, concurrency=4)


def verdict(word: str, change: float | None) -> MetricDoc:
    return {
        "metric": THROUGHPUT, "verdict": word, "current": 1.0, "baseline": 1.0, "band": None,
        "change": change, "low": None, "high": None, "runs": 5, "previous": None, "note": None,
    }  # fmt: skip


POINTS = {A: [verdict("ok", -0.09)], B: [verdict("ok", -0.01)], C: [verdict("new", None)]}
EVENT = Event(
    id="ev-1", server=KEY, onset=2, first_bad_run="run-2", last_good_run="run-1",
    state="confirmed", confirmed_at=3, confirmed_in="run-3", confirmed_by="runs",
    new_confirmation=True, cause=None, runs=2, points=(A, B), curves=((1024, 1024),),
    metrics=(THROUGHPUT,), changes={THROUGHPUT: Change(change=-0.1, low=-0.12, high=-0.08)},
    differences={}, how=("runs",),
)  # fmt: skip


def words(state: str) -> tuple[dict[PointKey, str], dict[tuple[int, int], str]]:
    event = replace(EVENT, state=state)
    marked = mark(POINTS, [event])
    curves = curves_of(marked, [event])
    return {p: m["verdict"] for p, (m,) in marked.items()}, {
        k: c.verdict for k, c in curves.items()
    }


def test_only_the_points_still_moved_by_at_least_half_the_change_are_marked() -> None:
    assert words("confirmed") == (
        {A: "regression", B: "ok", C: "new"},
        {(1024, 1024): "regression", (8192, 1024): "new"},
    )


def test_a_suspicion_marks_suspected_and_a_cleared_event_nothing() -> None:
    assert words("suspected") == (
        {A: "suspected", B: "ok", C: "new"},
        {(1024, 1024): "suspected", (8192, 1024): "new"},
    )
    assert words("cleared") == (
        {A: "ok", B: "ok", C: "new"},
        {(1024, 1024): "ok", (8192, 1024): "new"},
    )


def test_a_curves_change_is_its_points_mean_throughput_change() -> None:
    curves = curves_of(POINTS, [])
    assert curves[(1024, 1024)].change == pytest.approx(-0.05)
    assert curves[(8192, 1024)].change is None
