"""generator.core.abjob: the job file of an A/B confirmation checked (each refusal's one
line), and the noise model it carries."""

from __future__ import annotations

from typing import Any

import pytest

from generator.core import ab_noise
from generator.core.abjob import check_confirmation, noise_of
from generator.core.exits import InputError
from tests.launchers.support import fixture_job

AT = "job.json: confirmation"


def side(name: str) -> dict[str, Any]:
    digest = "sha256:" + name * 64
    return {
        "image": f"rocm/atom-dev@{digest}",
        "image_requested": "rocm/atom-dev:sglang-latest",
        "image_tag": "sglang-latest",
        "image_digest": digest,
        "run": "123",
    }


def job(**block: Any) -> dict[str, Any]:
    data = fixture_job("--preset", "all-qwen")
    data["confirmation"] = {
        "event": "ev-qwen-tp4-r7",
        "repeats": 3,
        "level": 0.95,
        "metrics": {"output_throughput": {"higher_is_better": True, "min_change": 0.05}},
        "a": side("a"),
        "b": side("b"),
        "candidates": [side("c")],
        "max_bisect_steps": 2,
        **block,
    }
    return data


def refusal(**block: Any) -> str:
    with pytest.raises(InputError) as info:
        check_confirmation(job(**block), "job.json")
    return str(info.value)


def test_a_whole_confirmation_job_is_returned_as_it_is() -> None:
    data = job()
    assert check_confirmation(data, "job.json") is data


def test_the_job_itself_is_checked_first() -> None:
    data = job()
    del data["id"]
    with pytest.raises(InputError, match=r"^job\.json: 'id' must be"):
        check_confirmation(data, "job.json")


def test_a_missing_block_is_refused() -> None:
    data = job()
    del data["confirmation"]
    with pytest.raises(InputError, match=rf"^{AT} must be an object$"):
        check_confirmation(data, "job.json")


@pytest.mark.parametrize("event", ["", "-starts-with-dash", "has space", "x" * 201, 7])
def test_an_event_outside_its_pattern_is_refused(event: object) -> None:
    assert (
        refusal(event=event) == f"{AT}: 'event' must match ^[A-Za-z0-9][A-Za-z0-9._:+-]{{0,199}}$"
    )


@pytest.mark.parametrize(
    ("key", "value", "bounds"),
    [
        ("repeats", 1, "2 to 10"),
        ("repeats", 11, "2 to 10"),
        ("repeats", True, "2 to 10"),
        ("repeats", 3.0, "2 to 10"),
        ("max_bisect_steps", -1, "0 to 10"),
        ("max_bisect_steps", 11, "0 to 10"),
        ("max_bisect_steps", None, "0 to 10"),
    ],
)
def test_counts_outside_their_bounds_are_refused(key: str, value: object, bounds: str) -> None:
    assert refusal(**{key: value}) == f"{AT}: '{key}' must be an integer from {bounds}"


def test_the_counts_bounds_are_accepted() -> None:
    for repeats, steps in ((2, 0), (10, 10)):
        check_confirmation(job(repeats=repeats, max_bisect_steps=steps), "job.json")


@pytest.mark.parametrize("level", [0.49, 1, 1.5, True, "0.95"])
def test_a_level_outside_one_half_to_one_is_refused(level: object) -> None:
    assert refusal(level=level) == f"{AT}: 'level' must be a number from 0.5 to below 1"


def test_a_level_of_one_half_is_accepted() -> None:
    check_confirmation(job(level=0.5), "job.json")


@pytest.mark.parametrize("metrics", [{}, [], None])
def test_metrics_must_name_at_least_one(metrics: object) -> None:
    assert refusal(metrics=metrics) == f"{AT}: 'metrics' must be a non-empty object"


@pytest.mark.parametrize(
    "rule",
    [
        {"higher_is_better": 1, "min_change": 0.05},
        {"higher_is_better": True, "min_change": 0},
        {"higher_is_better": True, "min_change": 1},
        {"higher_is_better": True, "min_change": True},
        {"higher_is_better": True},
        "higher",
    ],
)
def test_a_metric_rule_needs_a_direction_and_a_change_between_0_and_1(rule: object) -> None:
    assert refusal(metrics={"ttft": rule}) == (
        f"{AT}: metrics.ttft must have a boolean 'higher_is_better' and a 'min_change' "
        "between 0 and 1"
    )


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            {"image": "rocm/atom-dev:sglang-latest"},
            "'image' must be pinned by digest (repository@sha256:...)",
        ),
        (
            {"image": "rocm/atom-dev@sha256:" + "A" * 64},
            "'image' must be pinned by digest (repository@sha256:...)",
        ),
        ({"image_digest": "sha256:" + "f" * 64}, "'image_digest' must be the digest of 'image'"),
        ({"image_tag": None}, "'image_tag' must be a string"),
        ({"image_requested": 1}, "'image_requested' must be a string"),
        ({"run": 123}, "'run' must be a string or null"),
    ],
)
def test_each_side_is_pinned_by_its_digest(edit: dict[str, object], message: str) -> None:
    assert refusal(b={**side("b"), **edit}) == f"{AT}.b: {message}"
    assert refusal(candidates=[side("c"), {**side("d"), **edit}]) == (
        f"{AT}.candidates[1]: {message}"
    )


def test_a_side_that_is_no_object_or_candidates_not_a_list_are_refused() -> None:
    assert refusal(a="rocm/atom-dev") == f"{AT}.a must be an object"
    assert refusal(candidates=None) == f"{AT}: 'candidates' must be a list"


def test_a_side_not_measured_yet_has_a_null_run() -> None:
    check_confirmation(job(a={**side("a"), "run": None}, candidates=[]), "job.json")


@pytest.mark.parametrize(
    "noise",
    [
        {"launch": 0.01, "point": 1, "source": "aa"},
        {"launch": -0.01, "point": 0.02, "source": "aa"},
        {"launch": True, "point": 0.02, "source": "aa"},
        {"launch": 0.01, "point": 0.02},
        {"launch": 0.01, "source": "aa"},
        [0.01, 0.02],
    ],
)
def test_a_noise_block_needs_both_parts_below_one_and_its_source(noise: object) -> None:
    assert refusal(noise=noise) == (
        f"{AT}.noise must hold 'launch' and 'point' from 0 to below 1 and a 'source'"
    )


def test_the_noise_is_the_measured_one_else_the_default() -> None:
    measured = check_confirmation(
        job(noise={"launch": 0, "point": 0.03, "source": "aa-run-9"}), "job.json"
    )
    assert noise_of(measured["confirmation"]) == ab_noise.Noise(
        launch=0, point=0.03, source="aa-run-9"
    )
    plain = check_confirmation(job(), "job.json")
    assert noise_of(plain["confirmation"]) is ab_noise.DEFAULT_NOISE
