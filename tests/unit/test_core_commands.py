"""generator.core.commands: every command a job or case runs (the server's, the client's,
`hf download`), its models' paths, and the server's flags as the SGLang its image carries
names them, from the entry's `server_spellings` (written by expand from the flag tables)."""

from __future__ import annotations

from typing import cast

import pytest

from generator.core import commands
from generator.core.commands import Where, spelled
from generator.core.entry_checks import check_job
from generator.core.exits import InputError
from generator.expand.entries import spellings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry, PointEntry, ServerEntry

ARGS = ("--cuda-graph-bs", "1", "2", "--cuda-graph-max-bs", "256", "--page-size", "1")


def entry() -> ServerEntry:
    return cast("ServerEntry", {"server_args": list(ARGS), **spellings(ARGS)})


def test_the_entry_names_each_renamed_flag_with_the_releases_that_rename_it() -> None:
    assert spellings(ARGS) == {
        "server_spellings": [
            ["--cuda-graph-bs", "--cuda-graph-bs-decode", "0.5.20", ""],
            ["--cuda-graph-max-bs", "--cuda-graph-max-bs-decode", "0.5.20", ""],
        ]
    }
    assert spellings(("--page-size", "1")) == {}


@pytest.mark.parametrize(
    ("release", "names"),
    [
        (None, ("--cuda-graph-bs", "--cuda-graph-max-bs")),
        ("0.5.9", ("--cuda-graph-bs", "--cuda-graph-max-bs")),
        ("0.5.19", ("--cuda-graph-bs", "--cuda-graph-max-bs")),
        ("0.5.20rc1", ("--cuda-graph-bs", "--cuda-graph-max-bs")),
        ("0.5.20", ("--cuda-graph-bs-decode", "--cuda-graph-max-bs-decode")),
        ("0.5.23.post1", ("--cuda-graph-bs-decode", "--cuda-graph-max-bs-decode")),
        ("0.6.0.dev3+g1a2b3c4", ("--cuda-graph-bs-decode", "--cuda-graph-max-bs-decode")),
    ],
)
def test_the_launcher_names_the_flags_as_the_probed_release_does(
    release: str | None, names: tuple[str, str]
) -> None:
    bs, max_bs = names
    assert spelled(entry(), release) == [bs, "1", "2", max_bs, "256", "--page-size", "1"]


def test_a_bounded_renaming_holds_only_inside_its_releases() -> None:
    bounded = cast(
        "ServerEntry",
        {
            "server_args": ["--old", "1"],
            "server_spellings": [["--old", "--new", "0.5.14", "0.5.19"]],
        },
    )
    assert spelled(bounded, "0.5.13") == ["--old", "1"]
    assert spelled(bounded, "0.5.19") == ["--new", "1"]
    assert spelled(bounded, "0.5.20") == ["--old", "1"]


@pytest.mark.parametrize(
    "bad", [[["--a", "--b", "0.5.9"]], [["a", "--b", "0.5.9", ""]], "--a", [["--a", "--b", "", ""]]]
)
def test_a_malformed_spelling_list_is_refused(bad: object) -> None:
    job = {
        "id": "j",
        "model_path": "m",
        "runner": "r",
        "image": "i",
        "server_mode": "sglang-atom",
        "server_args": ["--a", "1"],
        "server_spellings": bad,
        "env": {},
        "server_fingerprint": "f",
        "spec": "none",
        "draft_tokens": None,
        "gpus": 1,
        "container": {"options": [], "model_cache": None, "allocation_file": None},
        "timeout_minutes": 10,
        "client": {"module": "m", "args": [], "env": {}},
        "point_timeout_factor": 3,
        "points": [],
    }
    with pytest.raises(InputError, match="'server_spellings' must be a list of"):
        check_job(job, "job j")


def test_only_hub_ids_come_from_the_cache_and_a_tokenizer_needs_no_weights() -> None:
    entry = cast(
        "ServerEntry",
        {
            "model_path": "/data/local-model",
            "server_args": [
                "--speculative-draft-model-path",
                "org/draft",
                "--tokenizer-path",
                "org/tok",
            ],
        },
    )
    where = Where(python="python3", port="1", logs="/logs", model_cache="/cache")
    assert commands.models(entry, where) == {
        "/data/local-model": "/data/local-model",
        "org/draft": "/cache/org/draft",
        "org/tok": "/cache/org/tok",
    }
    assert commands.tokenizer_only(entry) == {"org/tok"}


WHERE = Where(python="/venv/bin/python", port="30001", logs="/r/logs")
CACHED = Where(python="py", port="1", logs="/l", model_cache="/models")


def job(**fields: object) -> JobEntry:
    data: dict[str, object] = {
        "id": "qwen-tp4",
        "model_path": "Qwen/Qwen3",
        "server_args": ["--tp", "4", "--speculative-draft-model", "org/draft"],
        "client": {
            "module": "sglang.bench_serving",
            "args": ["--host", "{host}:{port}", "--model={model}", "--ratio", "{ratio}"],
            "env": {},
        },
        **fields,
    }
    return cast("JobEntry", data)


def point(**fields: object) -> PointEntry:
    data: dict[str, object] = {
        "id": "qwen-tp4-1024-8",
        "isl": 1024,
        "osl": 512,
        "random_range_ratio": 1,
        "num_prompts": 40,
        "num_warmups": 8,
        "concurrency": 8,
        **fields,
    }
    return cast("PointEntry", data)


def test_the_server_is_on_loopback_and_its_files_are_named_for_the_entry() -> None:
    assert commands.base_url(WHERE) == "http://127.0.0.1:30001"
    assert commands.server_log(job(), WHERE) == "/r/logs/qwen-tp4.server.log"
    assert commands.bench_output(point(), WHERE) == "/r/logs/qwen-tp4-1024-8.bench.jsonl"
    assert commands.bench_log(point(), WHERE) == "/r/logs/qwen-tp4-1024-8.bench.log"


def test_without_a_cache_every_model_is_given_as_its_id() -> None:
    assert commands.models(job(), WHERE) == {"Qwen/Qwen3": "Qwen/Qwen3", "org/draft": "org/draft"}


def test_a_pinned_revision_has_a_snapshot_of_its_own_for_the_served_model_only() -> None:
    entry = job(model_revision="abc123")
    assert commands.models(entry, CACHED) == {
        "Qwen/Qwen3": "/models/Qwen/Qwen3@abc123",
        "org/draft": "/models/org/draft",
    }
    assert commands.revision_of(entry, "Qwen/Qwen3") == "abc123"
    assert commands.revision_of(entry, "org/draft") is None
    assert commands.revision_of(job(), "Qwen/Qwen3") is None


def test_a_model_named_twice_is_one_model() -> None:
    entry = job(server_args=["--tokenizer-path", "Qwen/Qwen3", "--tokenizer-path", "org/t"])
    assert list(commands.models(entry, CACHED)) == ["Qwen/Qwen3", "org/t"]
    # The served model's tokenizer comes with its weights.
    assert commands.tokenizer_only(entry) == {"org/t"}


def test_a_tokenizer_that_is_also_a_draft_model_needs_its_weights() -> None:
    entry = job(
        server_args=["--tokenizer-path", "org/d", "--speculative-draft-model-path", "org/d"]
    )
    assert commands.tokenizer_only(entry) == set()


def test_the_download_is_pinned_only_when_the_catalog_pins_a_revision() -> None:
    assert commands.download_argv("org/m", "/models/org/m") == [
        "hf",
        "download",
        "org/m",
        "--local-dir",
        "/models/org/m",
    ]
    assert commands.download_argv("org/m", "/d", "r1") == [
        "hf",
        "download",
        "org/m",
        "--revision",
        "r1",
        "--local-dir",
        "/d",
    ]


def test_the_server_gets_the_cached_models_the_address_the_revision_and_its_args() -> None:
    entry = job(model_revision="abc123")
    assert commands.server_argv(entry, CACHED) == [
        "py",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/models/Qwen/Qwen3@abc123",
        "--host",
        "127.0.0.1",
        "--port",
        "1",
        "--revision",
        "abc123",
        "--tp",
        "4",
        "--speculative-draft-model",
        "/models/org/draft",
    ]


def test_a_value_equal_to_a_model_id_is_replaced_only_after_a_model_flag() -> None:
    entry = job(server_args=["--served-model-name", "org/draft", "--tokenizer-path", "org/draft"])
    assert commands.server_argv(entry, CACHED)[9:] == [
        "--served-model-name",
        "org/draft",
        "--tokenizer-path",
        "/models/org/draft",
    ]


def test_the_client_s_placeholders_are_filled_for_the_point() -> None:
    assert commands.client_values(job(), point(), CACHED) == {
        "host": "127.0.0.1",
        "port": "1",
        "model": "/models/Qwen/Qwen3",
        "isl": "1024",
        "osl": "512",
        "ratio": "1.0",
        "num_prompts": "40",
        "num_warmups": "8",
        "concurrency": "8",
        "output_file": "/l/qwen-tp4-1024-8.bench.jsonl",
    }
    assert commands.client_values(job(), point(random_range_ratio=0.8), CACHED)["ratio"] == "0.8"


def test_the_client_runs_its_module_with_every_placeholder_inside_a_token_filled() -> None:
    assert commands.bench_argv(job(), point(), WHERE) == [
        "/venv/bin/python",
        "-m",
        "sglang.bench_serving",
        "--host",
        "127.0.0.1:30001",
        "--model=Qwen/Qwen3",
        "--ratio",
        "1.0",
    ]
