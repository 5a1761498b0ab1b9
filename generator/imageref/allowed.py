"""Which images a job may run: those of the image repositories the catalog declares for
its server mode (each with its registry), and, for a GPU job or the history, pinned by
digest. A reference's repository is compared as the registry API names it, so
`rocm/atom-dev`, `docker.io/rocm/atom-dev` and `registry-1.docker.io/rocm/atom-dev` are
one repository, and `evil.example/rocm/atom-dev` another."""

from __future__ import annotations

from generator.imageref.reference import ImageError, parse_reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


class NotAllowed(ImageError):
    """An image outside the declared repositories, or not pinned where it must be (exit 2)."""


def repository(text: str) -> str:
    """`registry/repository` of an image reference or a declared repository, as the
    registry API names them (`registry-1.docker.io/rocm/atom-dev`)."""
    ref = parse_reference(text)
    return f"{ref.registry}/{ref.repository}"


def names_registry(text: str) -> bool:
    """Whether a repository is written with its registry (`docker.io/rocm/atom-dev`, not
    `rocm/atom-dev`): its first component is a host (a `.` or a `:`, or `localhost`)."""
    first, slash, _ = text.partition("/")
    return bool(slash) and ("." in first or ":" in first or first == "localhost")


def is_allowed(image: str, repositories: Iterable[str]) -> bool:
    """Whether `image` (a reference or a nightly pattern) is of one of `repositories`."""
    return repository(image) in {repository(r) for r in repositories}


def check_allowed(image: str, mode: str, repositories: tuple[str, ...]) -> None:
    """NotAllowed naming the repositories of `mode` unless `image` is of one of them."""
    if not is_allowed(image, repositories):
        msg = (
            f"image '{image}': server mode '{mode}' runs images of "
            f"{', '.join(repositories) or 'no repository'} only"
        )
        raise NotAllowed(msg)


def is_pinned(image: str) -> bool:
    """Whether `image` names its digest (`name@sha256:...`)."""
    return parse_reference(image).digest is not None
