"""Resolution against a real registry (the distribution server on loopback, images pushed
by skopeo): tags to digests, nightly patterns over a window, pages, tokens, failures."""

from __future__ import annotations

import dataclasses
import json
import urllib.request
from datetime import date, timedelta
from typing import cast

import pytest

from generator.catalog.server_types import ImageReleases
from generator.catalog.upstream import SGLANG, index
from generator.errors import SelectionError
from generator.imageref.reference import ImageError, Reference
from generator.images import resolve
from generator.images.matrix import resolve_matrix
from generator.images.registry import MANIFEST_TYPES, RegistryClient
from generator.images.resolve import Resolution, ResolutionPath
from generator.images.sglang import Carried, check_matrix
from tests.registry.images import (
    ATOM,
    NIGHTLY,
    NIGHTLY_TAGS,
    RELEASE_LABEL,
    TODAY,
    LoadedRegistry,
    loaded_registry,
)
from tests.registry.server import free_port, require_tools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from generator.core.contract import JobEntry
    from generator.expand.expanded import Expanded
    from generator.images.matrix import Matrix

WINDOW = 7
RELEASE = "{version}-rocm720-mi35x-{date}"


@pytest.fixture(scope="session")
def registry(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoadedRegistry]:
    """One registry with the test images for the whole session; stopped at its end."""
    with loaded_registry(tmp_path_factory.mktemp("registry")) as running:
        yield running


@pytest.fixture
def client() -> RegistryClient:
    return RegistryClient(timeout=5, attempts=1, backoff=0)


def nightly(reg: LoadedRegistry, tag: str, days_back: int) -> Resolution:
    path: ResolutionPath = "today" if days_back == 0 else "earlier"
    name = f"{reg.host}/{NIGHTLY}"
    digest = reg.digests[f"{NIGHTLY}:{tag}"]
    return Resolution(
        requested=f"{name}:{RELEASE}" if "preview" not in tag else f"{name}:{RELEASE}-preview",
        name=name,
        tag=tag,
        digest=digest,
        pinned=f"{name}@{digest}",
        path=path,
        days_back=days_back,
    )


def test_a_tag_resolves_to_the_digest_skopeo_reads(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    requested = f"{registry.host}/{ATOM}:sglang-latest"
    digest = registry.registry.raw_digest(f"{ATOM}:sglang-latest")
    assert digest == registry.digests[f"{ATOM}:sglang-latest"]
    assert resolve(requested, TODAY, WINDOW, client) == Resolution(
        requested=requested,
        name=f"{registry.host}/{ATOM}",
        tag="sglang-latest",
        digest=digest,
        pinned=f"{registry.host}/{ATOM}@{digest}",
        path="tag",
    )


def test_a_multi_arch_tag_resolves_to_its_index_digest(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    resolution = resolve(f"{registry.host}/{ATOM}:multi", TODAY, WINDOW, client)
    index = registry.registry.raw_digest(f"{ATOM}:multi")
    assert resolution.digest == index == registry.digests[f"{ATOM}:multi"]
    assert resolution.pinned == f"{registry.host}/{ATOM}@{index}"
    platforms = json.loads(registry_blob(registry, index))["manifests"]
    assert resolution.digest not in [p["digest"] for p in platforms]
    assert len(platforms) == 2


def registry_blob(registry: LoadedRegistry, digest: str) -> bytes:
    request = urllib.request.Request(
        f"http://{registry.host}/v2/{ATOM}/manifests/{digest}",
        headers={"Accept": ", ".join(MANIFEST_TYPES)},
    )
    with urllib.request.urlopen(request, timeout=5) as answer:
        data: bytes = answer.read()
        return data


def test_a_digest_is_kept_without_asking_the_registry(client: RegistryClient) -> None:
    digest = "sha256:" + "ab" * 32
    host = f"127.0.0.1:{free_port()}"  # nothing listens there
    assert resolve(f"{host}/x/y:t@{digest}", TODAY, WINDOW, client) == Resolution(
        requested=f"{host}/x/y:t@{digest}",
        name=f"{host}/x/y",
        tag="t",
        digest=digest,
        pinned=f"{host}/x/y@{digest}",
        path="digest",
    )


def test_todays_nightly_is_taken_when_present(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    got = resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}", TODAY, WINDOW, client)
    assert got == nightly(registry, "v0.5.9-rocm720-mi35x-20261201", 0)


def test_a_pattern_matches_whole_tags_so_a_preview_has_its_own(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    got = resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}-preview", TODAY, WINDOW, client)
    assert got == nightly(registry, "v0.5.9-rocm720-mi35x-20261201-preview", 0)


def test_without_todays_nightly_the_newest_earlier_one_in_the_window_is_taken(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    today = date(2026, 12, 3)
    got = resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}", today, WINDOW, client)
    assert got == nightly(registry, "v0.5.9-rocm720-mi35x-20261201", 2)


def test_of_several_versions_on_the_newest_date_the_highest_is_taken(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    # 2026-11-28 has v0.5.8.post1, v0.5.9, v0.5.10rc1 and v0.5.10; 2026-11-30 is rocm700 only.
    today = date(2026, 11, 30)
    got = resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}", today, WINDOW, client)
    assert got == nightly(registry, "v0.5.10-rocm720-mi35x-20261128", 2)


def test_nightlies_dated_after_today_are_not_taken(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    today = date(2026, 11, 28)
    got = resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}", today, WINDOW, client)
    assert got == nightly(registry, "v0.5.10-rocm720-mi35x-20261128", 0)


def test_the_window_includes_its_first_day(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    today = date(2026, 11, 22)
    got = resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}", today, 7, client)
    assert got == nightly(registry, "v0.5.8-rocm720-mi35x-20261115", 7)
    with pytest.raises(ImageError) as info:
        resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}", today, 6, client)
    assert str(info.value) == (
        f"no tag matching {registry.host}/{NIGHTLY}:{RELEASE} between 2026-11-16 and 2026-11-22 "
        "(today and the 6 days before; newest: v0.5.8-rocm720-mi35x-20261115 on 2026-11-15)"
    )


def test_an_empty_window_is_one_line_naming_the_newest_match(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    with pytest.raises(ImageError) as info:
        resolve(f"{registry.host}/{NIGHTLY}:{RELEASE}", date(2026, 12, 20), WINDOW, client)
    assert str(info.value) == (
        f"no tag matching {registry.host}/{NIGHTLY}:{RELEASE} between 2026-12-13 and 2026-12-20 "
        "(today and the 7 days before; newest: v0.5.9-rocm720-mi35x-20261201 on 2026-12-01)"
    )
    assert info.value.return_code == 2


def test_a_pattern_nothing_matches_says_so(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    requested = f"{registry.host}/{NIGHTLY}:{{version}}-rocm999-{{date}}"
    with pytest.raises(ImageError) as info:
        resolve(requested, TODAY, WINDOW, client)
    assert str(info.value) == (
        f"no tag matching {requested} between 2026-11-24 and 2026-12-01 (today and the 7 days "
        f"before; no tag matches the pattern among {len(NIGHTLY_TAGS)} tags)"
    )


def test_a_missing_tag_is_one_line(registry: LoadedRegistry, client: RegistryClient) -> None:
    requested = f"{registry.host}/{ATOM}:nope"
    with pytest.raises(ImageError) as info:
        resolve(requested, TODAY, WINDOW, client)
    assert str(info.value) == f"{requested}: tag 'nope' not found in {registry.host}/{ATOM}"


def test_a_missing_repository_is_one_line(registry: LoadedRegistry, client: RegistryClient) -> None:
    requested = f"{registry.host}/ci/absent:{RELEASE}"
    with pytest.raises(ImageError) as info:
        resolve(requested, TODAY, WINDOW, client)
    assert str(info.value) == f"{requested}: repository not found: {registry.host}/ci/absent"


def test_an_unreachable_registry_is_one_line_naming_the_offline_switch(
    client: RegistryClient,
) -> None:
    host = f"127.0.0.1:{free_port()}"
    with pytest.raises(ImageError) as info:
        resolve(f"{host}/x/y:t", TODAY, WINDOW, client)
    assert str(info.value) == (
        f"{host}/x/y:t: registry unreachable: {host} ([Errno 111] Connection refused); "
        "without the registry, SGLANG_CI_RESOLVE_IMAGES=0 (the workflows' resolve_images: "
        "false) runs it unpinned"
    )
    with pytest.raises(ImageError) as info:
        resolve(f"{host}/x/y:{{version}}-rocm720-{{date}}", TODAY, WINDOW, client)
    assert str(info.value).endswith(
        "; without the registry, a nightly pattern needs it: name a tag and set "
        "SGLANG_CI_RESOLVE_IMAGES=0 (the workflows' resolve_images: false) to run it unpinned"
    )


def test_tag_pages_are_followed_and_the_token_is_fetched_once(registry: LoadedRegistry) -> None:
    paged = RegistryClient(timeout=5, attempts=1, backoff=0, page_size=3)
    log = registry.front.log
    log.clear()
    got = resolve(f"{registry.front_host}/{NIGHTLY}:{RELEASE}", TODAY, WINDOW, paged)
    assert got.tag == "v0.5.9-rocm720-mi35x-20261201"
    assert got.digest == registry.digests[f"{NIGHTLY}:{got.tag}"]
    pages = [line for line in log if "/tags/list" in line]
    # A 401 first, then every page of three with the token: the newest tag is on the last.
    assert len(pages) == 1 + -(-len(NIGHTLY_TAGS) // 3)
    assert pages[-1].startswith(f"GET /v2/{NIGHTLY}/tags/list?n=3&last=")
    assert [line for line in log if line.startswith("GET /token")] == [
        "GET /token?service=test-registry&scope=repository%3Aci%2Fsgl-dev%3Apull"
    ]


def test_an_expired_token_is_replaced(registry: LoadedRegistry, client: RegistryClient) -> None:
    ref = f"{registry.front_host}/{ATOM}:sglang-latest"
    log = registry.front.log
    log.clear()
    first = resolve(ref, TODAY, WINDOW, client)
    registry.front.token = "token-2"  # the first one no longer works
    try:
        assert resolve(ref, TODAY, WINDOW, client) == first
    finally:
        registry.front.token = "token-1"
    assert [line.split()[1].split("?")[0] for line in log] == [
        f"/v2/{ATOM}/manifests/sglang-latest",  # 401
        "/token",
        f"/v2/{ATOM}/manifests/sglang-latest",
        f"/v2/{ATOM}/manifests/sglang-latest",  # 401: token-1 has expired
        "/token",
        f"/v2/{ATOM}/manifests/sglang-latest",
    ]


def test_a_registry_without_the_digest_header_is_hashed(registry: LoadedRegistry) -> None:
    front = RegistryClient(timeout=5, attempts=1, backoff=0)
    registry.front.strip_digest = True
    try:
        got = resolve(f"{registry.front_host}/{ATOM}:multi", TODAY, WINDOW, front)
    finally:
        registry.front.strip_digest = False
    assert got.digest == registry.digests[f"{ATOM}:multi"]


def test_a_busy_registry_is_tried_again(registry: LoadedRegistry) -> None:
    ref = f"{registry.front_host}/{ATOM}:sglang-latest"
    registry.front.busy = 2
    try:
        got = resolve(ref, TODAY, WINDOW, RegistryClient(timeout=5, attempts=3, backoff=0))
        assert got.digest == registry.digests[f"{ATOM}:sglang-latest"]
        registry.front.busy = 1
        with pytest.raises(ImageError) as info:
            resolve(ref, TODAY, WINDOW, RegistryClient(timeout=5, attempts=1, backoff=0))
    finally:
        registry.front.busy = 0
    assert (
        str(info.value)
        == f"{ref}: manifest of {registry.front_host}/{ATOM}:sglang-latest: HTTP 503"
    )


def test_a_registry_that_wants_credentials_is_refused(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    ref = f"{registry.front_host}/{ATOM}:sglang-latest"
    registry.front.challenge = 'Basic realm="private"'
    try:
        with pytest.raises(ImageError) as info:
            resolve(ref, TODAY, WINDOW, client)
    finally:
        registry.front.challenge = None
    assert str(info.value) == (
        f"{ref}: {registry.front_host} asks for credentials (Basic); "
        "only anonymous pulls are supported"
    )


class Counting:
    """A registry client that counts its requests."""

    def __init__(self, inner: RegistryClient) -> None:
        self.inner = inner
        self.calls: list[str] = []

    def tags(self, ref: Reference) -> list[str]:
        self.calls.append(f"tags {ref.repository}")
        return self.inner.tags(ref)

    def digest(self, ref: Reference, tag: str) -> str:
        self.calls.append(f"digest {ref.repository}:{tag}")
        return self.inner.digest(ref, tag)


def test_a_matrix_resolves_each_distinct_reference_once(
    registry: LoadedRegistry, client: RegistryClient
) -> None:
    atom = f"{registry.host}/{ATOM}:sglang-latest"
    pattern = f"{registry.host}/{NIGHTLY}:{RELEASE}"
    entries = [
        {"id": "a", "image": atom, "points": []},
        {"id": "b", "image": pattern},
        {"id": "c", "image": atom},
        {"id": "d", "image": pattern},
    ]
    matrix = cast("Matrix[JobEntry]", {"include": entries})
    counting = Counting(client)
    today = TODAY + timedelta(days=1)
    pinned, resolutions = resolve_matrix(matrix, today, WINDOW, counting)
    assert counting.calls == [
        f"digest {ATOM}:sglang-latest",
        f"tags {NIGHTLY}",
        f"digest {NIGHTLY}:v0.5.9-rocm720-mi35x-20261201",
    ]
    atom_digest = registry.digests[f"{ATOM}:sglang-latest"]
    nightly_digest = registry.digests[f"{NIGHTLY}:v0.5.9-rocm720-mi35x-20261201"]
    atom_fields = {
        "image": f"{registry.host}/{ATOM}@{atom_digest}",
        "image_requested": atom,
        "image_tag": "sglang-latest",
        "image_digest": atom_digest,
        "image_resolution": "tag",
    }
    nightly_fields = {
        "image": f"{registry.host}/{NIGHTLY}@{nightly_digest}",
        "image_requested": pattern,
        "image_tag": "v0.5.9-rocm720-mi35x-20261201",
        "image_digest": nightly_digest,
        "image_resolution": "earlier",
    }
    assert dict(pinned) == {
        "include": [
            {"id": "a", "points": [], **atom_fields},
            {"id": "b", **nightly_fields},
            {"id": "c", **atom_fields},
            {"id": "d", **nightly_fields},
        ]
    }
    assert [r.requested for r in resolutions] == [atom, pattern]
    assert resolutions[1].days_back == 1
    assert matrix["include"][0]["image"] == atom  # the input is left as it was


def test_missing_tools_fail_the_tests_and_say_what_installs_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SGLANG_CI_NO_REGISTRY", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(pytest.fail.Exception) as info:
        require_tools()
    assert str(info.value) == (
        "docker-registry and skopeo not installed: make test installs them (apt-get install "
        "docker-registry skopeo), or set SGLANG_CI_NO_REGISTRY=1 to skip these tests"
    )


def test_the_registry_tests_skip_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SGLANG_CI_NO_REGISTRY", "1")
    with pytest.raises(pytest.skip.Exception):
        require_tools()


def test_the_sglang_release_of_an_image_is_read_from_a_label_of_its_config(
    registry: LoadedRegistry, client: RegistryClient, fixture: Expanded
) -> None:
    """The select step's check (generator.images.sglang) on a repository whose images say
    their SGLang in a label: a single image's, a multi-arch index's linux/amd64 image's,
    and an image without the label (any release of the catalog's range)."""
    repo = f"{registry.host}/{ATOM}"
    catalog = dataclasses.replace(
        fixture.catalog,
        image_releases=(
            ImageReleases(repository=repo, releases=index(SGLANG).releases, label=RELEASE_LABEL),
        ),
    )
    new_flag = "--disable-aiter-allreduce-fusion-in-decode"

    def pinned(tag: str) -> Matrix[JobEntry]:
        entry = {"id": "j", "server_mode": "sglang-atom", "image": f"{repo}:{tag}"}
        matrix = {"include": [{**entry, "server_args": [new_flag], "points": []}]}
        return resolve_matrix(cast("Matrix[JobEntry]", matrix), TODAY, WINDOW, client)[0]

    with pytest.raises(SelectionError) as info:
        check_matrix(catalog, pinned("labelled-0.5.9"), client)
    assert str(info.value) == (
        f"job j (sglang-atom): image '{repo}:labelled-0.5.9' carries SGLang 0.5.9 (from its "
        f"label {RELEASE_LABEL}): SGLang 0.5.9 has no {new_flag} (it is a flag of 0.5.21 to "
        "0.5.23); no GPU job started"
    )
    assert check_matrix(catalog, pinned("labelled-multi"), client) == (
        Carried(
            image=f"{repo}:labelled-multi",
            release="0.5.23",
            how=f"from its label {RELEASE_LABEL}",
            checked=("0.5.23",),
        ),
    )
    with pytest.raises(SelectionError) as info:
        check_matrix(catalog, pinned("sglang-latest"), client)
    assert str(info.value) == (
        f"job j (sglang-atom): image '{repo}:sglang-latest' may carry SGLang 0.5.9 to 0.5.23 "
        f"(no label {RELEASE_LABEL} read): SGLang 0.5.9 has no {new_flag} (it is a flag of "
        "0.5.21 to 0.5.23); no GPU job started"
    )
