"""`generator.images.pushed_image.apply`: the pushed PR image in the entries that run on it."""

from __future__ import annotations

from typing import cast

import pytest

from generator.errors import SelectionError
from generator.images.prbuild import Plan
from generator.images.pushed_image import apply

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import CaseEntry
    from generator.images.matrix import Matrix

DIGEST = "sha256:" + "ab" * 32
PLAN = Plan(
    pr=7,
    head="0123456789abcdef0123",
    repository="ghcr.io/org/pr",
    base="ghcr.io/org/base@sha256:" + "00" * 32,
    dockerfile="docker/x.Dockerfile",
    context=".",
    args=(),
    server_mode="sglang",
    cases=("case-a",),
    jobs=(),
)
ENTRIES = {
    "include": [
        {"id": "case-a", "server_mode": "sglang", "image": "old"},
        {"id": "case-a", "server_mode": "other", "image": "old"},
        {"id": "case-b", "server_mode": "sglang", "image": "old"},
    ]
}
MATRIX = cast("Matrix[CaseEntry]", ENTRIES)


def test_only_the_plan_s_entries_of_its_server_mode_run_on_the_pushed_digest() -> None:
    [matrix] = apply(PLAN, DIGEST, [MATRIX], None)
    first, other_mode, other_case = matrix["include"]
    assert dict(first) == {
        "id": "case-a",
        "server_mode": "sglang",
        "image": f"ghcr.io/org/pr@{DIGEST}",
        "image_requested": "ghcr.io/org/pr:pr-7-0123456789ab",
        "image_tag": "pr-7-0123456789ab",
        "image_digest": DIGEST,
        "image_resolution": "built",
        "image_build": {
            "pr": 7,
            "head": "0123456789abcdef0123",
            "base": PLAN.base,
            "dockerfile": "docker/x.Dockerfile",
        },
    }
    assert other_mode["image"] == other_case["image"] == "old"


def test_a_builder_report_that_is_no_digest_is_refused() -> None:
    with pytest.raises(SelectionError) as refused:
        apply(PLAN, "latest", [MATRIX], None)
    assert str(refused.value) == "the builder reported 'latest', not a sha256 digest"
