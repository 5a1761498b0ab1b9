"""Image references, parsed with Docker's distribution reference grammar: an optional
registry host[:port], lowercase path components, an optional tag and an optional sha256
digest. A tag with `{version}`/`{date}` placeholders is a nightly pattern (`pattern.py`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from generator.errors import SglangCIError
from generator.imageref.pattern import TagPattern, is_pattern, parse_pattern

_ALNUM = "[a-z0-9]+"
_SEPARATOR = "(?:[._]|__|-+)"
_COMPONENT = f"{_ALNUM}(?:{_SEPARATOR}{_ALNUM})*"
PATH_RE = re.compile(f"{_COMPONENT}(?:/{_COMPONENT})*")
_DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_HOST = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[a-fA-F0-9:]+\])"
HOST_RE = re.compile(f"{_HOST}(?::[0-9]+)?")
TAG_RE = re.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
DIGEST_RE = re.compile("sha256:[0-9a-f]{64}")
NAME_MAX = 255  # the grammar's limit on a name, registry included

DOCKER_HUB = "registry-1.docker.io"
_HUB_ALIASES = ("docker.io", "index.docker.io", DOCKER_HUB)
_ALLOWED = re.compile(r"[A-Za-z0-9._:/@{}\[\]-]")


class ImageError(SglangCIError):
    """An image reference that cannot be used or resolved (exit 2)."""

    return_code = 2


@dataclass(frozen=True, kw_only=True)
class Reference:
    """A parsed reference. `name` is as written (`rocm/atom-dev`); `registry` and
    `repository` are where the registry API finds it (`registry-1.docker.io`,
    `rocm/atom-dev`). `tag` is the pattern's text when `pattern` is set, and `latest`
    when neither a tag nor a digest is written."""

    text: str
    name: str
    registry: str
    repository: str
    tag: str | None
    digest: str | None
    pattern: TagPattern | None


def refuse(text: str, why: str) -> ImageError:
    return ImageError(f"'{text}': not an image reference: {why}")


def _check_characters(text: str) -> None:
    if not text:
        raise refuse(text, "empty")
    if any(c.isspace() for c in text):
        raise refuse(text, "it contains whitespace")
    bad = next((c for c in text if not _ALLOWED.fullmatch(c)), None)
    if bad is not None:
        raise refuse(text, f"character {bad!r} is not allowed")


def _split_registry(text: str, name: str) -> tuple[str, str]:
    """(registry, repository path): the first component names a registry when it has a
    `.` or a `:` or is `localhost`; otherwise the name is on Docker Hub."""
    first, slash, rest = name.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        if not HOST_RE.fullmatch(first):
            raise refuse(text, f"registry '{first}' is not a host[:port]")
        host, path = first, rest
    else:
        host, path = DOCKER_HUB, name
    if "{" in path or "}" in path:
        raise refuse(text, "placeholders belong in the tag")
    if not PATH_RE.fullmatch(path):
        lower = PATH_RE.fullmatch(path.lower())
        raise refuse(
            text,
            "repository names are lowercase"
            if lower
            else f"repository '{path}' is not lowercase components joined by '/'",
        )
    if host in _HUB_ALIASES:
        return DOCKER_HUB, path if "/" in path else f"library/{path}"
    return host, path


def parse_reference(text: str) -> Reference:
    """`text` as a reference or a nightly pattern, or ImageError saying what is wrong."""
    _check_characters(text)
    rest, at, digest = text.partition("@")
    if at and not DIGEST_RE.fullmatch(digest):
        raise refuse(text, "a digest is sha256: followed by 64 lowercase hex digits")
    name, tag = rest, None
    colon = rest.rfind(":")
    if colon > rest.rfind("/"):
        name, tag = rest[:colon], rest[colon + 1 :]
    if len(name) > NAME_MAX:
        raise refuse(text, f"the name is longer than {NAME_MAX} characters")
    registry, repository = _split_registry(text, name)
    pattern = None
    if tag is not None and is_pattern(tag):
        if at:
            raise refuse(text, "a nightly pattern cannot carry a digest")
        try:
            pattern = parse_pattern(tag, TAG_RE)
        except ValueError as exc:
            raise refuse(text, str(exc)) from None
    elif tag is not None and not TAG_RE.fullmatch(tag):
        raise refuse(
            text, f"tag '{tag}' is not 1-128 of A-Z a-z 0-9 _ . - (not starting with . or -)"
        )
    return Reference(
        text=text,
        name=name,
        registry=registry,
        repository=repository,
        tag=tag if tag is not None or at else "latest",
        digest=digest if at else None,
        pattern=pattern,
    )
