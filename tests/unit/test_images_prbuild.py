"""`generator.images.prbuild`: the plan of a pull request's own image (what is built, on what,
pushed where, what runs on it), read back from the select job's output, and its step-summary
block."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from generator.catalog.server_types import ImageBuild
from generator.errors import Loc, SelectionError
from generator.images.prbuild import MAX_PR, Plan, plan, read_plan, summary_markdown

HEAD = "0123456789abcdef0123456789abcdef01234567"
BASE = "rocm/atom-dev@sha256:" + "a" * 64
BUILD = ImageBuild(
    runner="atom-builder",
    repository="ghcr.io/example/atom-sglang-pr",
    base="rocm/atom-dev:sglang-latest",
    server_mode="sglang-atom",
    dockerfile="docker/Dockerfile",
    context="docker",
    paths=("docker/Dockerfile",),
    args=(("ROCM", "7.0"), ("ARCH", "gfx950")),
    timeout_minutes=90,
    loc=Loc("catalogs/benchmark.yaml", 12),
)


def _plan(**changes: Any) -> Plan:
    p = plan(BUILD, pr=42, head=HEAD, base=BASE, cases=["case-a"], jobs=iter(["job-a", "job-b"]))
    return dataclasses.replace(p, **changes)


def test_the_plan_builds_the_catalog_s_dockerfile_on_the_pinned_base() -> None:
    assert _plan().as_json() == {
        "pr": 42,
        "head": HEAD,
        "repository": "ghcr.io/example/atom-sglang-pr",
        "tag": "pr-42-0123456789ab",
        "base": BASE,
        "dockerfile": "docker/Dockerfile",
        "context": "docker",
        "args": {"ROCM": "7.0", "ARCH": "gfx950"},
        "server_mode": "sglang-atom",
        "cases": ["case-a"],
        "jobs": ["job-a", "job-b"],
    }


@pytest.mark.parametrize("pr", [0, -1, MAX_PR + 1])
def test_a_pull_request_number_github_never_gives_is_refused(pr: int) -> None:
    with pytest.raises(SelectionError) as info:
        plan(BUILD, pr=pr, head=HEAD, base=BASE, cases=(), jobs=())
    assert str(info.value) == f"pull request number {pr} is not one GitHub gives"


def test_the_select_job_s_output_reads_back_as_the_plan() -> None:
    p = _plan()
    assert read_plan(json.dumps(p.as_json())) == p


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", ("the build plan is not the select job's (Expecting value: line 1 column 1 "
         "(char 0))")),
        ("[]", ("the build plan is not the select job's (list indices must be integers or "
         "slices, not str)")),
        ('{"pr": 1}', "the build plan is not the select job's ('head')"),
    ],
    ids=["not-json", "a-list", "a-field-missing"],
)  # fmt: skip
def test_an_output_that_is_no_plan_is_refused_in_one_line(text: str, message: str) -> None:
    with pytest.raises(SelectionError) as info:
        read_plan(text)
    assert str(info.value) == message


def test_a_plan_whose_tag_is_not_its_own_is_refused() -> None:
    raw = {**_plan().as_json(), "tag": "pr-42-latest"}
    with pytest.raises(SelectionError) as info:
        read_plan(json.dumps(raw))
    assert str(info.value) == ("the build plan's tag 'pr-42-latest' is not 'pr-42-0123456789ab'")


def test_the_summary_says_what_is_built_where_and_what_runs_on_it() -> None:
    assert summary_markdown(_plan(), runner="atom-builder") == (
        "### The pull request's image\n"
        "\n"
        f"PR #42's `docker/Dockerfile` at `{HEAD}`, built on the builder `atom-builder` over "
        f"`docker` on the base `{BASE}` (pinned by digest), pushed as "
        "`ghcr.io/example/atom-sglang-pr:pr-42-0123456789ab`.\n"
        "\n"
        "Build arguments: `ROCM=7.0`, `ARCH=gfx950`\n"
        "\n"
        "Run on it: 1 accuracy case(s) and 2 benchmark job(s): `case-a`, `job-a`, `job-b`\n"
        "\n"
    )


def test_the_summary_of_a_pushed_unpinned_plan_with_nothing_to_run() -> None:
    p = _plan(base="rocm/atom-dev:sglang-latest", args=(), cases=(), jobs=())
    digest = "sha256:" + "b" * 64
    assert summary_markdown(p, digest=digest).splitlines()[2:] == [
        (
            f"PR #42's `docker/Dockerfile` at `{HEAD}`, built over `docker` on the base "
            "`rocm/atom-dev:sglang-latest` (not pinned: image resolution is off), pushed as "
            f"`ghcr.io/example/atom-sglang-pr@{digest}`."
        ),
        "",
        "Run on it: 0 accuracy case(s) and 0 benchmark job(s).",
        "",
    ]
