"""generator/results/shown_events.py: an event of the verdicts JSON as it is shown, read or
made up for a document without events."""

from __future__ import annotations

from generator.results.shown_events import _size, event_of, made_up_events
from generator.results.shown_verdicts import MetricVerdict, Move, PointVerdict, ShownCurveVerdict


def test_a_change_reads_with_its_interval_and_a_difference_as_before_and_after() -> None:
    assert _size({"change": -0.101, "low": -0.118, "high": -0.084}) == "-10.1% [-11.8%, -8.4%]"
    assert (_size({"change": 0.05}), _size(["a", "b"]), _size("x")) == ("+5.0%", "a -> b", "x")


def test_an_event_reads_its_points_curves_and_moves() -> None:
    e = event_of(
        {
            "id": "ev-1", "config": "c", "state": "suspected",
            "points": [{"isl": 1024, "osl": 512, "concurrency": 8}],
            "curves": [{"isl": 1024, "osl": 512}],
            "changes": {"output_throughput_per_gpu": {"change": -0.1, "low": -0.12, "high": -0.08}},
            "differences": {"image_digest": ["a", None]},
            "runs": True,  # not a count
            "confirmed_by": 3,  # not a word
        }
    )  # fmt: skip
    assert (e.id, e.verdict, e.state, e.runs, e.confirmed_by) == (
        "ev-1",
        "suspected",
        "suspected",
        1,
        None,
    )
    assert (e.points, e.at) == (
        ("1024x512 c=8", "1024x512 curve"),
        ((1024, 512, 8), (1024, 512, None)),
    )
    assert e.changes == (
        ("output_throughput_per_gpu", "-10.0% [-12.0%, -8.0%]"), ("image_digest", "a -> None"),
    )  # fmt: skip
    assert e.moves == (
        Move(metric="output_throughput_per_gpu", change=-0.1, low=-0.12, high=-0.08),
    )
    assert e.differences == (("image_digest", "a", "-"),)


def test_without_events_one_is_made_up_per_config_with_marked_points_or_curves() -> None:
    point = PointVerdict(
        config="c", isl=1, osl=2, concurrency=4, verdict="regression", reason=None,
        metrics=(MetricVerdict(metric="m", verdict="regression", change=-0.1),),
    )  # fmt: skip
    curve = ShownCurveVerdict(
        config="d", isl=1, osl=2, verdict="suspected", interactivity=None, change=None
    )
    c, d = made_up_events("run-9", (point,), (curve,))
    assert (c.id, c.verdict, c.points, c.metrics, c.at) == (
        "c@run-9",
        "regression",
        ("1x2 c=4",),
        ("m",),
        ((1, 2, 4),),
    )
    assert (d.id, d.verdict, d.points, d.at) == (
        "d@run-9",
        "suspected",
        ("1x2 curve",),
        ((1, 2, None),),
    )
