"""generator.core.commands.spelled: the server's flags as the SGLang its image carries names
them, from the entry's `server_spellings` (written by expand from the flag tables)."""

from __future__ import annotations

from typing import cast

import pytest

from generator.core.commands import spelled
from generator.core.entry_checks import check_job
from generator.core.exits import InputError
from generator.expand.entries import spellings

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import ServerEntry

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
