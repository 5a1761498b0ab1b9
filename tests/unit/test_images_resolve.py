"""`generator.images.resolve`: one reference pinned (a tag to its digest, a nightly pattern to
the newest nightly in the window; a digest as written), or left as requested when
SGLANG_CI_RESOLVE_IMAGES=0. tests/unit/test_images_registry.py resolves against a registry."""

from __future__ import annotations

import os
from datetime import date

import pytest

from generator.imageref.reference import ImageError
from generator.images.registry import RegistryClient
from generator.images.resolve import RESOLVE_ENV, registry_from_env, resolve
from generator.images.transport import RegistryError, RegistryUnreachable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.imageref.reference import Reference

TODAY = date(2026, 12, 1)
DIGEST = "sha256:" + "0123456789abcdef" * 4
NIGHTLY = "rocm/sgl-dev:{version}-rocm720-mi35x-{date}"


class _Registry:
    """Tags listed as given, each with DIGEST; `fails` raised by every request; `asked`
    what was asked."""

    def __init__(self, tags: list[str], fails: RegistryError | None = None) -> None:
        self.listed, self.fails = tags, fails
        self.asked: list[str] = []

    def tags(self, ref: Reference) -> list[str]:
        self.asked.append(f"tags of {ref.name}")
        if self.fails:
            raise self.fails
        return self.listed

    def digest(self, ref: Reference, tag: str) -> str:
        self.asked.append(f"digest of {ref.name}:{tag}")
        if self.fails:
            raise self.fails
        return DIGEST


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


def test_a_negative_window_is_refused() -> None:
    with pytest.raises(ImageError) as info:
        resolve("rocm/atom-dev:x", TODAY, -1, None)
    assert str(info.value) == "the nightly window is -1 days; it cannot be negative"


def test_a_reference_without_a_tag_is_pinned_at_latest() -> None:
    registry = _Registry([])
    r = resolve("rocm/atom-dev", TODAY, 7, registry)
    assert registry.asked == ["digest of rocm/atom-dev:latest"]
    assert (r.requested, r.tag, r.path, r.image) == (
        "rocm/atom-dev",
        "latest",
        "tag",
        f"rocm/atom-dev@{DIGEST}",
    )


def test_a_nightly_pattern_takes_today_s_else_the_newest_in_the_window() -> None:
    tags = ["v1-rocm720-mi35x-20261125", "v2-rocm720-mi35x-20261129", "v3-rocm720-mi35x-20261202"]
    registry = _Registry(tags)
    earlier = resolve(NIGHTLY, TODAY, 7, registry)
    assert registry.asked == [
        "tags of rocm/sgl-dev",
        "digest of rocm/sgl-dev:v2-rocm720-mi35x-20261129",
    ]
    assert (earlier.tag, earlier.path, earlier.days_back) == (
        "v2-rocm720-mi35x-20261129",
        "earlier",
        2,
    )
    today = resolve(NIGHTLY, TODAY, 7, _Registry([*tags, "v0-rocm720-mi35x-20261201"]))
    assert (today.tag, today.path, today.days_back) == ("v0-rocm720-mi35x-20261201", "today", 0)


def test_a_window_without_a_nightly_names_the_newest_older_one() -> None:
    with pytest.raises(ImageError) as info:
        resolve(NIGHTLY, TODAY, 3, _Registry(["v1-rocm720-mi35x-20261125", "other"]))
    assert str(info.value) == (
        f"no tag matching {NIGHTLY} between 2026-11-28 and 2026-12-01 (today and the 3 days "
        "before; newest: v1-rocm720-mi35x-20261125 on 2026-11-25)"
    )


def test_an_unreachable_registry_says_how_to_run_without_it() -> None:
    down = _Registry([], RegistryUnreachable("registry-1.docker.io: no answer"))
    with pytest.raises(ImageError) as info:
        resolve("rocm/atom-dev:v1", TODAY, 7, down)
    assert str(info.value) == (
        "rocm/atom-dev:v1: registry-1.docker.io: no answer; without the registry, "
        f"{RESOLVE_ENV}=0 (the workflows' resolve_images: false) runs it unpinned"
    )
    with pytest.raises(ImageError, match=r"a nightly pattern needs it: name a tag and set"):
        resolve(NIGHTLY, TODAY, 7, down)
    with pytest.raises(ImageError) as other:
        resolve("rocm/atom-dev:v1", TODAY, 7, _Registry([], RegistryError("denied")))
    assert str(other.value) == "rocm/atom-dev:v1: denied"
