"""generator.launch.contract: a job's timeout factor and point estimates."""

from __future__ import annotations

from typing import Any

import pytest

from generator.launch.contract import check_job
from generator.launch.errors import InputError
from tests.launchers.support import fixture_job, small_points


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
