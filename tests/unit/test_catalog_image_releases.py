"""generator.catalog.image_releases: tag patterns, and the release a tag names."""

from __future__ import annotations

from generator.catalog.image_releases import check_pattern, from_tag
from generator.catalog.server_types import ImageReleases

ROCM = ImageReleases(
    repository="docker.io/rocm/sgl-dev", releases=("0.5.9",), tag="v{version}-rocm*"
)


def test_a_tag_pattern_names_version_once_and_no_other_placeholder() -> None:
    assert check_pattern("v{version}-rocm*") is None
    assert check_pattern("v*") == "a tag pattern names {version} once (`*` stands for any text)"
    assert check_pattern("{version}-{gpu}") == "a tag pattern has no placeholder but {version}"


def test_a_tag_names_the_release_its_pattern_places() -> None:
    assert from_tag(ROCM, "v0.5.9-rocm700-mi35x") == "0.5.9"
    assert from_tag(ROCM, "latest") is None
    assert from_tag(ROCM, None) is None
    assert from_tag(ImageReleases(repository="docker.io/x/y", releases=()), "v0.5.9") is None
