"""generator.catalog.image_sections: `images.sglang` and `images.build`, each checked
against the repositories the server modes run."""

from __future__ import annotations

import pytest

from generator.catalog.image_sections import build_image_build, build_image_releases
from generator.catalog.reader import Reader
from generator.errors import CatalogError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from generator.catalog.server_types import ServerMode
    from generator.expand.expanded import Expanded

R = Reader({}, "b.yaml")
BUILD = {
    "runner": "builder",
    "repository": "ghcr.io/o/pr",
    "base": "docker.io/rocm/atom-dev:x",
    "server_mode": "sglang-atom",
    "dockerfile": "docker/Dockerfile",
    "paths": ["docker/"],
}


def modes(fixture: Expanded) -> dict[str, ServerMode]:
    return {m.name: m for m in fixture.catalog.server_modes}


def refusal(call: Callable[[], object]) -> str:
    with pytest.raises(CatalogError) as info:
        call()
    return str(info.value)


def test_a_repository_s_releases_run_from_its_first_to_its_last(fixture: Expanded) -> None:
    raw = {"tag": "v{version}-rocm*", "releases": {"from": "0.5.20", "to": "0.5.22"}}
    found = build_image_releases(R, modes(fixture), "docker.io/rocm/sgl-dev", raw)
    assert (found.releases, found.tag) == (("0.5.20", "0.5.21", "0.5.22"), "v{version}-rocm*")
    assert refusal(lambda: build_image_releases(R, modes(fixture), "rocm/sgl-dev", {})) == (
        "b.yaml:1: image repository 'rocm/sgl-dev' is not one a server mode runs (with its "
        "registry) (did you mean 'docker.io/rocm/sgl-dev'?)"
    )
    down = {"releases": {"from": "0.5.20", "to": "0.5.9"}}
    assert refusal(
        lambda: build_image_releases(R, modes(fixture), "docker.io/rocm/sgl-dev", down)
    ) == ("b.yaml:1: releases run from 0.5.20 to an older 0.5.9")


def test_a_pr_image_builds_in_a_repository_of_its_own_from_paths_inside_it(
    fixture: Expanded,
) -> None:
    build = build_image_build(R, modes(fixture), BUILD)
    assert (build.context, build.paths, build.timeout_minutes) == (
        ".",
        ("docker/Dockerfile", "docker/"),
        120,
    )
    outside = {**BUILD, "paths": ["../x"]}
    assert refusal(lambda: build_image_build(R, modes(fixture), outside)) == (
        "b.yaml:1: '../x' leaves the repository: name a path inside it"
    )
    runs = {**BUILD, "repository": "docker.io/rocm/atom-dev"}
    assert refusal(lambda: build_image_build(R, modes(fixture), runs)) == (
        "b.yaml:1: repository 'docker.io/rocm/atom-dev' is one a server mode runs: pull "
        "requests' images need a repository of their own, whose images never reach the history"
    )
