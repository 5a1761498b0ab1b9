"""Resolution turned off, matrices that cannot be resolved, and the step-summary block."""

from __future__ import annotations

import os
from datetime import date
from typing import Any, cast

import pytest

from generator.images import (
    RESOLVE_ENV,
    ImageError,
    RegistryClient,
    Resolution,
    registry_from_env,
    resolve,
    resolve_matrix,
    summary_markdown,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry
    from generator.images.matrix import Matrix

TODAY = date(2026, 12, 1)
DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize(("value", "on"), [(None, True), ("", True), ("1", True), ("0", False)])
def test_the_switch_turns_resolution_off_only_at_0(
    monkeypatch: pytest.MonkeyPatch, value: str | None, on: bool
) -> None:
    if value is None:
        monkeypatch.delenv(RESOLVE_ENV, raising=False)
    else:
        monkeypatch.setenv(RESOLVE_ENV, value)
    client = registry_from_env(os.environ)
    assert isinstance(client, RegistryClient) if on else client is None


def test_the_switch_refuses_other_values() -> None:
    with pytest.raises(ImageError) as info:
        registry_from_env({RESOLVE_ENV: "off"})
    assert str(info.value) == f"{RESOLVE_ENV} is 0 (off) or 1 (on, the default), not 'off'"


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


def test_with_resolution_off_a_pattern_is_refused() -> None:
    with pytest.raises(ImageError) as info:
        resolve("rocm/sgl-dev:{version}-rocm720-mi35x-{date}", TODAY, 7, None)
    assert str(info.value) == (
        "rocm/sgl-dev:{version}-rocm720-mi35x-{date}: a nightly pattern names no tag to run "
        f"while {RESOLVE_ENV}=0 turns resolution off; name a tag, or turn resolution on"
    )


def test_with_resolution_off_a_digest_is_still_pinned() -> None:
    resolution = resolve(f"rocm/atom-dev@{DIGEST}", TODAY, 7, None)
    assert (resolution.path, resolution.pinned) == ("digest", f"rocm/atom-dev@{DIGEST}")


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


def test_a_negative_window_is_refused() -> None:
    with pytest.raises(ImageError) as info:
        resolve("rocm/atom-dev:x", TODAY, -1, None)
    assert str(info.value) == "the nightly window is -1 days; it cannot be negative"


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
