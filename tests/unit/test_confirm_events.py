"""The events of `results compare --json`, typed (generator/confirm/events.py)."""

from __future__ import annotations

import pytest

from generator.confirm.events import defining_metric, parse
from generator.results.record import ResultsError
from tests.unit.test_confirm_issues import CONFIG, SERVER, event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

KEY = (CONFIG, *SERVER.values())


def point(verdict: str = "ok", **metrics: Mapping[str, object]) -> dict[str, object]:
    return {"config": CONFIG, **SERVER, "isl": 1024, "osl": 1024, "concurrency": 4,
            "verdict": verdict, "metrics": metrics}  # fmt: skip


def test_a_points_change_value_and_verdict_are_read_per_metric() -> None:
    throughput = {"current": 1208, "change": -0.1, "verdict": "regressed"}
    ttft = {"current": "n/a", "change": None, "verdict": "ok"}
    found = parse({"schema": "sglang-ci/verdicts/2", "current": "run-07", "events": [event()],
                   "points": [point(output_throughput_per_gpu=throughput, median_ttft_ms=ttft)]},
                  "v.json")  # fmt: skip
    key = (KEY, 1024, 1024, 4)
    assert found.point_changes[key] == {"output_throughput_per_gpu": -0.1}
    assert found.point_values[key] == {"output_throughput_per_gpu": 1208.0}
    assert found.point_verdicts[key] == {
        "output_throughput_per_gpu": "regressed",
        "median_ttft_ms": "ok",
    }
    assert (found.current, found.measured) == ("run-07", frozenset({KEY}))
    assert found.back(found.events[0], "output_throughput_per_gpu") is False
    assert found.back(found.events[0], "median_ttft_ms") is True  # ok at its every point


def test_a_missing_point_does_not_measure_its_server() -> None:
    found = parse({"schema": "sglang-ci/verdicts/1", "points": [point("missing")]}, "v.json")
    assert (found.events, found.measured, found.current) == ((), frozenset(), "")


def test_the_defining_metric_is_the_first_by_weight() -> None:
    changes = {
        "median_ttft_ms": {"change": 0.3, "low": 0.2, "high": 0.4},
        "output_throughput_per_gpu": {"change": -0.08, "low": -0.09, "high": -0.07},
    }
    found = parse({"schema": "sglang-ci/verdicts/2", "events": [event(changes=changes)]}, "v")
    assert defining_metric(found.events[0]) == "output_throughput_per_gpu"
    assert [e.id for e in found.suspected()] == []
    none = parse({"schema": "sglang-ci/verdicts/2", "events": [event(changes={})]}, "v")
    assert defining_metric(none.events[0]) is None


def test_anything_else_is_refused_in_one_line() -> None:
    with pytest.raises(ResultsError, match=r"^v.json: not the JSON of `sglang-ci results"):
        parse({"schema": "sglang-ci/record/1"}, "v.json")
