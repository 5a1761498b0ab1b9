"""generator.launch.provenance_probe: which image, versions, GPUs and run made a result (the
provenance block of every record), and the Markdown block each step summary starts with."""

from __future__ import annotations

import stat
from typing import Any, cast

import pytest

from generator.launch import provenance_probe
from generator.launch.gpus import Gpus
from generator.launch.provenance_probe import collect, markdown, versions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import ServerEntry
    from generator.core.record_types import Provenance

DIGEST = "sha256:" + "a" * 64
GPUS = Gpus(tool="amd-smi", count=8, model="MI355X", vram_gb=288.0)
ENVIRON = {
    "GITHUB_SHA": "c0ffee",
    "RUNNER_NAME": "mi355-1",
    "GITHUB_REPOSITORY": "org/sglang-ci",
    "GITHUB_WORKFLOW": "nightly",
    "GITHUB_RUN_ID": "42",
    "GITHUB_RUN_ATTEMPT": "2",
    "GITHUB_EVENT_NAME": "schedule",
    "GITHUB_REF": "refs/heads/main",
    "RUNNER_TEMP": "",
}
FOUND = {"sglang": "0.5.7.dev12+g1a2b3c4", "atom": "0.1", "aiter": None, "lm_eval": None}


def entry(**fields: object) -> ServerEntry:
    data = {"image": "rocm/atom-dev:sglang-latest", "runner": "mi355-8gpu", **fields}
    return cast("ServerEntry", data)


@pytest.fixture
def rocm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "version"
    path.write_text("7.0.2-56\n", encoding="utf-8")
    monkeypatch.setattr(provenance_probe, "ROCM_VERSION_FILE", path)
    return path


def fake_python(tmp_path: Path, output: str) -> str:
    path = tmp_path / "python"
    path.write_text(f"#!/bin/sh\ncat <<'END'\n{output}END\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_versions_come_from_the_probe_s_last_line_empty_ones_null(tmp_path: Path) -> None:
    line = '{"sglang": "0.5.9", "atom": "", "aiter": 3, "extra": "x"}'
    python = fake_python(tmp_path, f"a warning\n{line}\n")
    assert versions(python) == {"sglang": "0.5.9", "atom": None, "aiter": "3", "lm_eval": None}


@pytest.mark.parametrize("output", ["", "not json\n", '{"sglang": "0.5.9"\n', "5\n", "[1]\n"])
def test_a_probe_without_a_readable_answer_gives_every_version_null(
    tmp_path: Path, output: str
) -> None:
    unknown = dict.fromkeys(("sglang", "atom", "aiter", "lm_eval"))
    assert versions(fake_python(tmp_path, output)) == unknown
    assert versions(str(tmp_path / "no-python")) == unknown


def test_a_tag_entry_has_every_field_of_the_block(rocm: Path) -> None:
    block = collect(entry(), GPUS, FOUND, ENVIRON, rocm.parent)
    assert block == {
        "image": {
            "requested": "rocm/atom-dev:sglang-latest",
            "tag": None,
            "digest": None,
            "pinned": None,
            "resolution": None,
        },
        "sglang_version": "0.5.7.dev12+g1a2b3c4",
        "sglang_commit": "1a2b3c4",
        "atom_version": "0.1",
        "aiter_version": None,
        "rocm_version": "7.0.2-56",
        "gpu": {"model": "MI355X", "count": 8, "vram_gb": 288.0},
        "runner_name": "mi355-1",
        "runner_label": "mi355-8gpu",
        "github": {
            "repository": "org/sglang-ci",
            "workflow": "nightly",
            "run_id": "42",
            "run_attempt": "2",
            "event": "schedule",
            "ref": "refs/heads/main",
        },
        "catalog_commit": "c0ffee",
    }


def test_a_pinned_image_names_its_digest_resolution_and_build(rocm: Path) -> None:
    pinned = entry(
        image=f"rocm/atom-dev@{DIGEST}",
        image_requested="rocm/atom-dev:sglang-latest",
        image_tag="sglang-latest",
        image_digest=DIGEST,
        image_resolution="tag",
        image_build={"pr": 12, "head": "abc", "base": "def"},
    )
    environ = {**ENVIRON, "SGLANG_GIT_COMMIT": "feed"}
    block = collect(pinned, GPUS, FOUND, environ, rocm.parent)
    assert block["image"] == {
        "requested": "rocm/atom-dev:sglang-latest",
        "tag": "sglang-latest",
        "digest": DIGEST,
        "pinned": f"rocm/atom-dev@{DIGEST}",
        "resolution": "tag",
        "build": {"pr": 12, "head": "abc", "base": "def"},
    }
    assert block["sglang_commit"] == "feed"


def test_without_rocm_git_or_the_environment_the_fields_are_null(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(provenance_probe, "ROCM_VERSION_FILE", tmp_path / "none")
    unknown = Gpus(tool=None, count=None, model=None, vram_gb=None)
    block = collect(entry(), unknown, dict.fromkeys(FOUND), {}, tmp_path)
    assert (block["rocm_version"], block["catalog_commit"], block["runner_name"]) == (
        None,
        None,
        None,
    )
    assert block["sglang_commit"] is None
    assert set(block["github"].values()) == {None}
    assert block["gpu"] == {"model": None, "count": None, "vram_gb": None}


def provenance(**image: Any) -> Provenance:
    return cast(
        "Provenance",
        {
            "image": {
                "requested": "rocm/atom-dev:sglang-latest",
                "tag": "sglang-latest",
                "digest": DIGEST,
                "pinned": None,
                "resolution": "tag",
                **image,
            },
            "sglang_version": "0.5.9",
            "sglang_commit": None,
            "atom_version": "0.1",
            "aiter_version": None,
            "rocm_version": "7.0.2",
            "gpu": {"model": "MI355X", "count": 8, "vram_gb": 288.0},
            "runner_name": "mi355-1",
            "runner_label": "mi355-8gpu",
            "github": {"run_id": "42", "run_attempt": "1"},
            "catalog_commit": "c0ffee",
        },
    )


def test_the_markdown_block_names_image_versions_gpus_and_run() -> None:
    assert markdown(provenance()) == (
        f"- **Image** `rocm/atom-dev:sglang-latest`: tag `sglang-latest`, digest `{DIGEST}` "
        "(tag)\n"
        "- **Versions** SGLang `0.5.9` (commit -), ATOM `0.1`, AITER -, ROCm `7.0.2`\n"
        "- **GPUs** `8` x `MI355X`, `288.0` GB each; runner `mi355-1` (`mi355-8gpu`)\n"
        "- **Run** `42` attempt `1`, catalog commit `c0ffee`\n\n"
    )


def test_an_image_without_a_digest_says_whether_it_was_pinned_and_built() -> None:
    first = markdown(provenance(digest=None, resolution=None)).splitlines()[0]
    assert first.endswith(": tag `sglang-latest`, not pinned (not resolved)")
    built = provenance(
        digest=None, pinned="r@sha256:1", build={"pr": 7, "head": "h1", "base": "b1"}
    )
    assert (
        markdown(built)
        .splitlines()[0]
        .endswith(": tag `sglang-latest`, `r@sha256:1` (tag), built for PR #7 from `h1` on `b1`")
    )
