"""`generator.imageref.allowed`: an image's repository as the registry API names it, whether a
server mode may run it, and whether it names its digest."""

from __future__ import annotations

import pytest

from generator.imageref.allowed import (
    NotAllowed,
    check_allowed,
    is_allowed,
    is_pinned,
    names_registry,
    repository,
)
from generator.imageref.reference import ImageError

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("rocm/atom-dev", "registry-1.docker.io/rocm/atom-dev"),
        ("docker.io/rocm/atom-dev:v1", "registry-1.docker.io/rocm/atom-dev"),
        ("index.docker.io/rocm/atom-dev", "registry-1.docker.io/rocm/atom-dev"),
        ("ubuntu", "registry-1.docker.io/library/ubuntu"),
        (f"localhost:5000/x/y@{DIGEST}", "localhost:5000/x/y"),
        ("ghcr.io/o/r:nightly", "ghcr.io/o/r"),
    ],
)
def test_a_repository_is_named_with_its_registry(text: str, expected: str) -> None:
    assert repository(text) == expected


def test_a_text_that_is_no_reference_is_refused() -> None:
    with pytest.raises(ImageError, match=r"^'UPPER/x': not an image reference: repository names"):
        repository("UPPER/x")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("docker.io/rocm/atom-dev", True),
        ("localhost/x", True),
        ("host:5000/x", True),
        ("rocm/atom-dev", False),
        ("atom-dev", False),
        ("docker.io", False),
    ],
)
def test_a_repository_names_its_registry_when_its_first_part_is_a_host(
    text: str, expected: bool
) -> None:
    assert names_registry(text) is expected


def test_an_image_is_allowed_when_its_repository_is_one_declared_however_spelled() -> None:
    declared = ("docker.io/rocm/atom-dev", "lmsysorg/sglang-rocm")
    assert is_allowed("rocm/atom-dev:latest", declared)
    assert is_allowed(f"registry-1.docker.io/lmsysorg/sglang-rocm@{DIGEST}", declared)
    assert not is_allowed("evil.example/rocm/atom-dev:latest", declared)
    assert not is_allowed("rocm/atom-dev:latest", ())


def test_an_image_outside_its_mode_s_repositories_is_refused_naming_them() -> None:
    check_allowed("rocm/atom-dev:latest", "sglang-atom", ("docker.io/rocm/atom-dev",))
    with pytest.raises(NotAllowed) as info:
        check_allowed("evil.example/rocm/atom-dev:1", "sglang-atom", ("rocm/atom-dev", "a/b"))
    assert str(info.value) == (
        "image 'evil.example/rocm/atom-dev:1': server mode 'sglang-atom' runs images of "
        "rocm/atom-dev, a/b only"
    )
    with pytest.raises(NotAllowed, match=r"runs images of no repository only$"):
        check_allowed("x/y:1", "m", ())
    assert issubclass(NotAllowed, ImageError)


def test_an_image_is_pinned_when_it_names_its_digest() -> None:
    assert is_pinned(f"rocm/atom-dev@{DIGEST}")
    assert is_pinned(f"rocm/atom-dev:v1@{DIGEST}")
    assert not is_pinned("rocm/atom-dev:v1")
