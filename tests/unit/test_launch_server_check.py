"""generator.launch.server_check: a job's server fields of the right types and sizes, its models
in the cache, and no flag the launcher sets on every server."""

from __future__ import annotations

from typing import Any

import pytest

from generator.launch.entry_checks import check_job
from generator.launch.exits import InputError
from tests.launchers.support import fixture_job, small_points


def job() -> dict[str, Any]:
    return small_points(fixture_job("--preset", "all-qwen"), [1])


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
