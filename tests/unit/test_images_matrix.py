"""`generator.images.matrix`: a run's matrix with every image pinned (each distinct reference
resolved once), and the step-summary block that says what each one became."""

from __future__ import annotations

import os
from datetime import date
from typing import Any, cast

import pytest

from generator.imageref.reference import ImageError
from generator.images.matrix import describe, resolve_matrix, summary_markdown
from generator.images.resolve import RESOLVE_ENV, Resolution, registry_from_env

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.imageref.reference import Reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry
    from generator.images.matrix import Matrix

TODAY = date(2026, 12, 1)
DIGEST = "sha256:" + "0123456789abcdef" * 4


class _Counting:
    """A registry whose every tag has DIGEST, counting the digests asked for."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def tags(self, ref: Reference) -> list[str]:
        self.asked.append(f"tags of {ref.name}")
        return []

    def digest(self, ref: Reference, tag: str) -> str:
        self.asked.append(f"{ref.name}:{tag}")
        return DIGEST


def test_each_distinct_reference_is_resolved_once_and_every_entry_pinned() -> None:
    client = _Counting()
    matrix: dict[str, Any] = {
        "include": [
            {"id": "a", "image": "rocm/atom-dev:v1", "x": 1},
            {"id": "b", "image": "rocm/atom-dev:v1"},
            {"id": "c", "image": "rocm/atom-dev"},
        ],
        "other": "kept",
    }
    pinned, resolutions = resolve_matrix(cast("Matrix[JobEntry]", matrix), TODAY, 7, client)
    assert client.asked == ["rocm/atom-dev:v1", "rocm/atom-dev:latest"]
    assert dict(pinned)["other"] == "kept"
    assert dict(pinned["include"][0]) == {
        "id": "a",
        "x": 1,
        "image": f"rocm/atom-dev@{DIGEST}",
        "image_requested": "rocm/atom-dev:v1",
        "image_tag": "v1",
        "image_digest": DIGEST,
        "image_resolution": "tag",
    }
    assert [e["image_tag"] for e in pinned["include"]] == ["v1", "v1", "latest"]
    assert [r.requested for r in resolutions] == ["rocm/atom-dev:v1", "rocm/atom-dev"]
    assert matrix["include"][0]["image"] == "rocm/atom-dev:v1"  # the input is left as it was


def test_with_resolution_off_every_reference_runs_as_requested(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(RESOLVE_ENV, "0")
    entries = [
        {"id": "a", "image": "rocm/atom-dev:sglang-latest"},
        {"id": "b", "image": "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x"},
    ]
    matrix = cast("Matrix[JobEntry]", {"include": entries})
    pinned, resolutions = resolve_matrix(matrix, TODAY, 7, registry_from_env(os.environ))
    assert dict(pinned["include"][0]) == {
        "id": "a",
        "image": "rocm/atom-dev:sglang-latest",
        "image_requested": "rocm/atom-dev:sglang-latest",
        "image_tag": "sglang-latest",
        "image_digest": "",
        "image_resolution": "unpinned",
    }
    assert [r.path for r in resolutions] == ["unpinned", "unpinned"]
    assert [r.image for r in resolutions] == [e["image"] for e in matrix["include"]]


def test_a_reference_is_checked_even_with_resolution_off() -> None:
    matrix = cast("Matrix[JobEntry]", {"include": [{"id": "a", "image": "x --privileged"}]})
    with pytest.raises(ImageError, match="not an image reference: it contains whitespace"):
        resolve_matrix(matrix, TODAY, 7, None)


@pytest.mark.parametrize(
    ("matrix", "message"),
    [
        ({}, "the matrix has no 'include' list of entries"),
        ({"include": [{"id": "a"}]}, "matrix entry a: no image to resolve"),
        ({"include": [{"id": "a", "image": ""}]}, "matrix entry a: no image to resolve"),
        ({"include": ["x"]}, "matrix entry #0: no image to resolve"),
    ],
)
def test_a_matrix_without_images_is_refused(matrix: dict[str, Any], message: str) -> None:
    with pytest.raises(ImageError) as info:
        resolve_matrix(cast("Matrix[JobEntry]", matrix), TODAY, 7, None)
    assert str(info.value) == message


def resolution(path: str, **fields: Any) -> Resolution:
    base: dict[str, Any] = {
        "requested": "rocm/x:t",
        "name": "rocm/x",
        "tag": "t",
        "digest": DIGEST,
        "pinned": f"rocm/x@{DIGEST}",
    }
    return Resolution(**{**base, "path": path, **fields})


def test_the_summary_lists_each_image_and_the_path_it_took() -> None:
    nightly = "rocm/sgl-dev:{version}-rocm720-mi35x-{date}"
    t = "v1-rocm720-mi35x"
    rows = [
        resolution("tag"),
        resolution("digest", requested=f"rocm/x@{DIGEST}", tag=None),
        resolution("today", requested=nightly, tag=f"{t}-20261201", days_back=0),
        resolution("earlier", requested=nightly, tag=f"{t}-20261130", days_back=1),
        resolution("earlier", requested=nightly, tag=f"{t}-20261128", days_back=3),
        resolution("unpinned", digest=None, pinned=None),
    ]
    assert summary_markdown(rows) == "\n".join(
        [
            "### Container images",
            "",
            "| Requested | Tag | Digest | Resolution |",
            "| --- | --- | --- | --- |",
            f"| `rocm/x:t` | `t` | `{DIGEST}` | tag looked up |",
            f"| `rocm/x@{DIGEST}` | - | `{DIGEST}` | pinned by digest as requested |",
            f"| `{nightly}` | `{t}-20261201` | `{DIGEST}` | today's nightly |",
            f"| `{nightly}` | `{t}-20261130` | `{DIGEST}` | earlier nightly, 1 day back |",
            f"| `{nightly}` | `{t}-20261128` | `{DIGEST}` | earlier nightly, 3 days back |",
            f"| `rocm/x:t` | `t` | not pinned | not pinned ({RESOLVE_ENV}=0) |",
            "",
        ]
    )


def test_a_run_without_images_says_so() -> None:
    assert summary_markdown([]) == "### Container images\n\nNo container image in this run.\n"


def test_each_path_is_described_in_words() -> None:
    assert describe(resolution("earlier", days_back=None)) == "earlier nightly, 0 days back"
    assert describe(resolution("unpinned")) == f"not pinned ({RESOLVE_ENV}=0)"
