"""The benchmark catalog's `images.build` and `images.sglang`, typed and checked."""

from __future__ import annotations

from typing import Any

from generator.catalog.image_releases import check_pattern
from generator.catalog.release_flags import release_at
from generator.catalog.server_types import ImageBuild, ImageReleases
from generator.catalog.upstream import SGLANG, index, supported
from generator.errors import did_you_mean
from generator.imageref.allowed import check_allowed, names_registry, repository
from generator.imageref.reference import ImageError, parse_reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.reader import Reader
    from generator.catalog.server_types import ServerMode


def check_image(r: Reader, image: str, mode: ServerMode, path: list[str | int]) -> None:
    """Refuse, at `path`, an image outside the repositories `mode` declares."""
    try:
        check_allowed(image, mode.name, mode.image_repositories)
    except ImageError as e:
        raise r.fail(e.message, path) from e


def build_image_build(
    r: Reader, modes: Mapping[str, ServerMode], raw: Mapping[str, Any]
) -> ImageBuild:
    """The PR image's build: a base of its server mode's repositories, a repository of
    its own that no server mode runs, paths inside the repository."""
    path: list[str | int] = ["images", "build"]
    mode = modes[r.known(str(raw["server_mode"]), modes, "server mode", [*path, "server_mode"])]
    base = str(raw["base"])
    try:
        parse_reference(base)
    except ImageError as e:
        raise r.fail(e.message, [*path, "base"]) from e
    check_image(r, base, mode, [*path, "base"])
    target = str(raw["repository"])
    if not names_registry(target):
        msg = f"repository '{target}' must name its registry (ghcr.io/owner/name)"
        raise r.fail(msg, [*path, "repository"])
    runs = sorted({x for m in modes.values() for x in m.image_repositories})
    if repository(target) in {repository(x) for x in runs}:
        msg = (
            f"repository '{target}' is one a server mode runs: pull requests' images "
            "need a repository of their own, whose images never reach the history"
        )
        raise r.fail(msg, [*path, "repository"])
    where = {
        "dockerfile": [str(raw["dockerfile"])],
        "context": [str(raw.get("context", "."))],
        "paths": [str(p) for p in raw.get("paths") or ()],
    }
    for key, values in where.items():
        for i, value in enumerate(values):
            if ".." in value.split("/"):
                msg = f"'{value}' leaves the repository: name a path inside it"
                raise r.fail(msg, [*path, key, i] if key == "paths" else [*path, key])
    return ImageBuild(
        runner=str(raw["runner"]),
        repository=target,
        base=base,
        server_mode=mode.name,
        dockerfile=where["dockerfile"][0],
        context=where["context"][0],
        paths=tuple(dict.fromkeys([where["dockerfile"][0], *where["paths"]])),
        args=tuple((str(k), str(v)) for k, v in (raw.get("args") or {}).items()),
        timeout_minutes=int(raw.get("timeout_minutes", 120)),
        loc=r.loc(path),
    )


def build_image_releases(
    r: Reader, modes: Mapping[str, ServerMode], name: str, raw: Mapping[str, Any]
) -> ImageReleases:
    """One repository's SGLang releases: a repository some server mode runs; releases
    that have a flag table; a tag pattern with {version} once."""
    path: list[str | int] = ["images", "sglang", name]
    runs = {repository(x) for m in modes.values() for x in m.image_repositories}
    if not names_registry(name) or repository(name) not in runs:
        known = sorted({x for m in modes.values() for x in m.image_repositories})
        msg = (
            f"image repository '{name}' is not one a server mode runs (with its "
            f"registry){did_you_mean(name, known)}"
        )
        raise r.fail(msg, path)
    releases = index(SGLANG).releases

    def supported_release(value: object, where: list[str | int]) -> int:
        found = release_at(str(value))
        if found is None:
            msg = (
                f"SGLang {value} has no flag table ({supported()}; make flag-tables "
                f"adds newer releases){did_you_mean(str(value), releases)}"
            )
            raise r.fail(msg, where)
        return found

    tag = raw.get("tag")
    if tag is not None:
        problem = check_pattern(str(tag))
        if problem:
            raise r.fail(problem, [*path, "tag"])
    first, last = 0, len(releases) - 1
    if "release" in raw:
        first = last = supported_release(raw["release"], [*path, "release"])
    span_raw = raw.get("releases") or {}
    if "from" in span_raw:
        first = supported_release(span_raw["from"], [*path, "releases", "from"])
    if "to" in span_raw:
        last = supported_release(span_raw["to"], [*path, "releases", "to"])
    if last < first:
        msg = f"releases run from {releases[first]} to an older {releases[last]}"
        raise r.fail(msg, [*path, "releases"])
    return ImageReleases(
        repository=name,
        releases=releases[first : last + 1],
        tag=None if tag is None else str(tag),
        label=None if raw.get("label") is None else str(raw["label"]),
        release=str(raw["release"]) if "release" in raw else None,
        loc=r.loc(path),
    )
