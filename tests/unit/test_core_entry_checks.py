"""generator.core.entry_checks: what a job or case file must hold before anything starts:
types, sizes and ranges, and no flag the launcher sets on every server."""

from __future__ import annotations

from typing import Any

import pytest

from generator.core.entry_checks import check_case, check_job
from generator.core.exits import InputError
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


def test_a_client_argument_naming_an_unknown_variable_is_refused() -> None:
    data = job()
    data["client"]["args"] = [*data["client"]["args"], "--seed", "{seed}"]
    with pytest.raises(InputError) as caught:
        check_job(data, "job.json")
    assert str(caught.value) == "job.json: client 'args': unknown variable '{seed}' in '{seed}'"
    data["client"]["args"][-1] = "{concurrency}"
    assert check_job(data, "job.json")["client"]["args"][-1] == "{concurrency}"


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


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (["--host", "0.0.0.0"], "server_args: --host is set by the launcher on every server"),
        (["--port=1"], "server_args: --port is set by the launcher on every server"),
        (["--model", "x"], "server_args: --model is set by the launcher on every server"),
        (
            ["--hos", "0.0.0.0"],
            "server_args: --hos abbreviates --host for SGLang, which is set by the launcher",
        ),
        (["--model-pat=x"], "server_args: --model-pat abbreviates --model-path for SGLang"),
        (["--po", "1"], "server_args: --po abbreviates --port for SGLang"),
    ],
)
def test_a_launcher_flag_or_an_abbreviation_of_one_in_server_args_is_refused(
    tokens: list[str], message: str
) -> None:
    data = job()
    data["server_args"] = ["--trust-remote-code", *tokens]
    with pytest.raises(InputError) as caught:
        check_job(data, "job.json")
    assert str(caught.value).startswith(f"job.json: {message}")
    assert "\n" not in str(caught.value)


def test_flags_that_only_share_a_start_with_a_launcher_flag_pass() -> None:
    data = job()
    data["server_args"] = ["--hostile-name", "x", "--portal", "--model-impl", "sglang", "-h"]
    assert check_job(data, "job.json")["server_args"] == data["server_args"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        ({"gpus": 0}, "job.json: 'gpus' is 0; a server needs 1 to 64 GPUs"),
        ({"gpus": 65}, "job.json: 'gpus' is 65; a server needs 1 to 64 GPUs"),
        ({"gpus": 1.5}, "job.json: 'gpus' must be an integer"),
        ({"draft_tokens": 0}, "job.json: 'draft_tokens' must be at least 1"),
        ({"id": "x" * 201}, "job.json: 'id' is 201 characters; at most 200"),
        ({"image": 7}, "job.json: 'image' must be a string (empty until pinned)"),
        ({"server_args": ["a"] * 4097}, "job.json: 'server_args' has 4097 items; at most 4096"),
        ({"server_args": ["x" * 65537]}, "job.json: 'server_args' items must be at most 65536"),
        (
            {"container": {"options": [1], "model_cache": None, "allocation_file": None}},
            "job.json: container 'options' must be a list of strings",
        ),
        (
            {"container": {"options": [], "model_cache": "relative", "allocation_file": None}},
            "job.json: container 'model_cache' must be an absolute path or null",
        ),
    ],
)
def test_server_fields_of_the_wrong_type_or_size_are_refused(
    edit: dict[str, Any], message: str
) -> None:
    data = {**job(), **edit}
    with pytest.raises(InputError) as caught:
        check_job(data, "job.json")
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    "model",
    [
        "Qwen/..",
        "..",
        "Qwen/../../etc",
        "./Qwen",
        "/models/Qwen",
        "Qwen/Qw\u0435n3",
        "Qwen//x",
        "org/model with space $(touch pwned-model)",
    ],
    ids=[
        "parent",
        "dot-dot",
        "climbing",
        "dot",
        "absolute",
        "non-ascii",
        "empty-part",
        "shell",
    ],
)
@pytest.mark.parametrize("where", ["model_path", "draft"])
def test_a_model_path_that_leaves_the_cache_or_is_not_ascii_is_refused(
    model: str, where: str
) -> None:
    data = job()
    if where == "model_path":
        data["model_path"] = model
    else:
        data["server_args"] = [*data["server_args"], "--speculative-draft-model-path", model]
    with pytest.raises(InputError, match="is not a Hugging Face id or a relative path") as caught:
        check_job(data, "job.json")
    assert "\n" not in str(caught.value)
