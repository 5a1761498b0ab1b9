"""Which SGLang releases an image carries: the catalog's declarations per image repository
(`images.sglang` in benchmark.yaml), read by lint (every release a server's images may
carry) and by the select step (the release of the image a run pinned). docs/images.md."""

from __future__ import annotations

import re

from generator.catalog.server_types import ImageReleases
from generator.catalog.upstream import SGLANG, index
from generator.imageref.allowed import repository

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.catalog.catalog_types import Catalog

# `{version}` in a tag pattern: a release as tags write it (digits first, no dash).
VERSION = r"(?P<version>[0-9][0-9A-Za-z.]*)"


def tag_regex(pattern: str) -> re.Pattern[str]:
    """A tag pattern as a regular expression on whole tags: `{version}` once, `*` any text."""
    head, _, tail = pattern.partition("{version}")
    parts = [re.escape(p).replace(r"\*", ".*") for p in (head, tail)]
    return re.compile(parts[0] + VERSION + parts[1])


def check_pattern(pattern: str) -> str | None:
    """Why `pattern` is no tag pattern (None: it is one)."""
    if pattern.count("{version}") != 1:
        return "a tag pattern names {version} once (`*` stands for any text)"
    rest = pattern.replace("{version}", "")
    if "{" in rest or "}" in rest:
        return "a tag pattern has no placeholder but {version}"
    return None


def declared(catalog: Catalog, image: str) -> ImageReleases:
    """The declaration of `image`'s repository; a repository without one may carry any
    supported release and names none of its images' own."""
    wanted = repository(image)
    for item in catalog.image_releases:
        if repository(item.repository) == wanted:
            return item
    return ImageReleases(repository=wanted, releases=index(SGLANG).releases)


def from_tag(item: ImageReleases, tag: str | None) -> str | None:
    """The release a tag names under the repository's pattern (None: it names none)."""
    if item.tag is None or not tag:
        return None
    found = tag_regex(item.tag).fullmatch(tag)
    return found["version"] if found else None


def carried(catalog: Catalog, images: Iterable[str]) -> tuple[str, ...]:
    """Every supported release one of `images` (references or repositories) may carry,
    oldest first."""
    wanted = {v for image in images for v in declared(catalog, image).releases}
    return tuple(v for v in index(SGLANG).releases if v in wanted)
