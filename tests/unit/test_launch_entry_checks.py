"""generator.launch.entry_checks: what a job or case file must hold before anything starts:
types, sizes and ranges of its points, client and evaluator."""

from __future__ import annotations

from typing import Any

import pytest

from generator.launch.entry_checks import check_case, check_job
from generator.launch.exits import InputError
from tests.launchers.support import fixture_case, fixture_job, small_points


def job() -> dict[str, Any]:
    return small_points(fixture_job("--preset", "all-qwen"), [1])


def test_a_generated_job_carries_a_positive_point_timeout_factor() -> None:
    entry = check_job(job(), "job.json")
    assert entry["point_timeout_factor"] > 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "job.json: 'point_timeout_factor' must be a number"),
        ("3", "job.json: 'point_timeout_factor' must be a number"),
        (0, "job.json: 'point_timeout_factor' must be positive"),
        (-1.5, "job.json: 'point_timeout_factor' must be positive"),
        (float("inf"), "job.json: 'point_timeout_factor' must be finite"),
    ],
)
def test_a_missing_or_non_positive_point_timeout_factor_is_refused(
    value: object, message: str
) -> None:
    data = job()
    if value is None:
        del data["point_timeout_factor"]
    else:
        data["point_timeout_factor"] = value
    with pytest.raises(InputError) as caught:
        check_job(data, "job.json")
    assert str(caught.value) == message


def test_a_point_estimate_below_one_minute_is_refused() -> None:
    data = job()
    data["points"][0]["estimate_minutes"] = 0
    with pytest.raises(InputError, match=r"points\[0\]: 'estimate_minutes' must be at least 1$"):
        check_job(data, "job.json")


@pytest.mark.parametrize("ratio", [5, 0, -0.5, 1.0000001])
def test_a_random_range_ratio_outside_0_to_1_is_refused(ratio: float) -> None:
    data = job()
    data["points"][0]["random_range_ratio"] = ratio
    with pytest.raises(InputError, match=r"points\[0\]: 'random_range_ratio' must be in \(0, 1\]$"):
        check_job(data, "job.json")


def test_more_points_than_a_dispatch_can_ask_for_are_refused() -> None:
    data = job()
    data["points"] = [{**data["points"][0], "id": f"p{i}"} for i in range(257)]
    with pytest.raises(InputError, match=r"257 points; a job runs at most 256$"):
        check_job(data, "job.json")


def test_a_case_threshold_or_rate_outside_0_to_1_or_a_two_line_metric_is_refused() -> None:
    case = fixture_case("deepseek-r1-fp4-tp4")
    for key, value in (("threshold", 1.5), ("min_acceptance_rate", -0.1)):
        with pytest.raises(InputError, match=f"'{key}' must be in \\[0, 1\\]$"):
            check_case({**case, key: value}, "case.json")
    bad = {**case, "evaluator": {**case["evaluator"], "metric": "exact\nmatch"}}
    with pytest.raises(InputError, match=r"evaluator: 'metric' must be one line$"):
        check_case(bad, "case.json")
