"""Image references: the distribution grammar, Docker Hub names, and what is refused."""

from __future__ import annotations

import pytest

from generator.errors import SglangCIError
from generator.imageref.reference import ImageError, parse_reference

DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize(
    ("text", "registry", "repository", "tag", "digest"),
    [
        (
            "rocm/atom-dev:sglang-latest",
            "registry-1.docker.io",
            "rocm/atom-dev",
            "sglang-latest",
            None,
        ),
        (
            "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x",
            "registry-1.docker.io",
            "lmsysorg/sglang-rocm",
            "v0.5.9-rocm700-mi35x",
            None,
        ),
        ("localhost:5000/x/y:tag", "localhost:5000", "x/y", "tag", None),
        ("ubuntu", "registry-1.docker.io", "library/ubuntu", "latest", None),
        ("docker.io/ubuntu:24.04", "registry-1.docker.io", "library/ubuntu", "24.04", None),
        ("index.docker.io/rocm/x:t", "registry-1.docker.io", "rocm/x", "t", None),
        ("ghcr.io/a/b.c__d-e:T_1.x-y", "ghcr.io", "a/b.c__d-e", "T_1.x-y", None),
        ("[::1]:5000/a:b", "[::1]:5000", "a", "b", None),
        (f"rocm/atom-dev@{DIGEST}", "registry-1.docker.io", "rocm/atom-dev", None, DIGEST),
        (f"rocm/atom-dev:x@{DIGEST}", "registry-1.docker.io", "rocm/atom-dev", "x", DIGEST),
    ],
)
def test_a_reference_names_its_registry_repository_tag_and_digest(
    text: str, registry: str, repository: str, tag: str | None, digest: str | None
) -> None:
    ref = parse_reference(text)
    assert (ref.registry, ref.repository, ref.tag, ref.digest) == (
        registry,
        repository,
        tag,
        digest,
    )
    assert ref.text == text
    assert ref.pattern is None


def test_the_name_is_kept_as_written() -> None:
    assert parse_reference("rocm/atom-dev:x").name == "rocm/atom-dev"
    assert parse_reference("localhost:5000/x/y:tag").name == "localhost:5000/x/y"


def test_a_tag_with_placeholders_is_a_nightly_pattern() -> None:
    ref = parse_reference("rocm/sgl-dev:{version}-rocm720-mi35x-{date}")
    assert ref.pattern is not None
    assert ref.tag == "{version}-rocm720-mi35x-{date}"
    assert ref.repository == "rocm/sgl-dev"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "empty"),
        ("rocm/atom-dev:latest --privileged", "it contains whitespace"),
        ("rocm/atom-dev:latest\n", "it contains whitespace"),
        ("rocm/atom-dev:$(id)", "character '$' is not allowed"),
        ("rocm/atom-dev;rm -rf /", "it contains whitespace"),
        ("rocm/atom-dev;true", "character ';' is not allowed"),
        ("`id`", "character '`' is not allowed"),
        ("ROCm/atom-dev:latest", "repository names are lowercase"),
        ("rocm/Atom-dev", "repository names are lowercase"),
        ("rocm//atom-dev", "repository 'rocm//atom-dev' is not lowercase components joined by '/'"),
        ("rocm/-atom:x", "repository 'rocm/-atom' is not lowercase components joined by '/'"),
        ("rocm/atom-dev:", "tag '' is not 1-128 of A-Z a-z 0-9 _ . - (not starting with . or -)"),
        (
            "rocm/atom-dev:-x",
            "tag '-x' is not 1-128 of A-Z a-z 0-9 _ . - (not starting with . or -)",
        ),
        (
            "rocm/atom-dev:" + "x" * 129,
            f"tag '{'x' * 129}' is not 1-128 of A-Z a-z 0-9 _ . - (not starting with . or -)",
        ),
        ("rocm/atom-dev@sha256:abc", "a digest is sha256: followed by 64 lowercase hex digits"),
        (
            "rocm/atom-dev@md5:" + "0" * 32,
            "a digest is sha256: followed by 64 lowercase hex digits",
        ),
        (
            "rocm/atom-dev@" + DIGEST.upper(),
            "a digest is sha256: followed by 64 lowercase hex digits",
        ),
        ("bad_host.io:x/y:z", "registry 'bad_host.io:x' is not a host[:port]"),
        ("a/" + "b" * 254, "the name is longer than 255 characters"),
        ("rocm/{version}:x-{date}", "placeholders belong in the tag"),
        (
            "rocm/sgl-dev:{ver}-{date}",
            "unknown placeholder '{ver}'; a pattern has {version} and {date}",
        ),
        ("rocm/sgl-dev:{version}", "a pattern has {date} once and {version} at most once"),
        ("rocm/sgl-dev:{date}-{date}", "a pattern has {date} once and {version} at most once"),
        ("rocm/sgl-dev:{version}{date}", "placeholders must be separated by literal text"),
        ("rocm/sgl-dev:{version-{date}", "a brace outside a placeholder"),
        ("rocm/sgl-dev:.{version}-{date}", "the pattern does not give a valid tag once filled in"),
        (f"rocm/sgl-dev:{{version}}-{{date}}@{DIGEST}", "a nightly pattern cannot carry a digest"),
    ],
)
def test_anything_else_is_refused_in_one_line(text: str, why: str) -> None:
    with pytest.raises(ImageError) as info:
        parse_reference(text)
    assert str(info.value) == f"'{text}': not an image reference: {why}"


def test_a_refusal_is_bad_input() -> None:
    with pytest.raises(SglangCIError) as info:
        parse_reference("x y")
    assert info.value.return_code == 2
