"""Which records `results admit` lets into the history by their image: of a declared
repository and pinned by digest, never a pull request's own image."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.core.logtext import one_line
from generator.imageref.allowed import is_allowed, is_pinned
from generator.imageref.reference import ImageError
from generator.results.record import ResultsError, read_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class Images:
    """The image repositories the catalog declares (every server mode's), with registries,
    and the one its pull requests' images are pushed to (never admitted)."""

    repositories: tuple[str, ...]
    pull_requests: tuple[str, ...] = ()


def _image_of(record: Mapping[str, Any]) -> str | None:
    image = (record.get("provenance") or {}).get("image") or {}
    text = image.get("pinned") or image.get("requested")
    return text if isinstance(text, str) and text else None


def _refuse_pull_request(
    rel: str, record: Mapping[str, Any], image: str | None, images: Images
) -> None:
    """ResultsError when the record is of a pull request's image."""
    built = ((record.get("provenance") or {}).get("image") or {}).get("build")
    try:
        of_pr = image is not None and is_allowed(image, images.pull_requests)
    except ImageError:
        of_pr = False
    if built or of_pr:
        which = f" (built for PR #{built.get('pr')})" if isinstance(built, dict) else ""
        msg = (
            f"{rel}: image '{one_line(image or '?')}' is a pull request's image{which}: the "
            "history admits none; the run is not admitted"
        )
        raise ResultsError(msg)


def screen(
    records: Sequence[tuple[Path, str]], images: Images
) -> tuple[list[tuple[Path, str]], list[str]]:
    """The records to admit, and the paths of those left out as not pinned by digest;
    ResultsError for a record of an image outside the declared repositories."""
    kept: list[tuple[Path, str]] = []
    not_pinned: list[str] = []
    for path, rel in records:
        record, _ = read_record(path)
        image = _image_of(record or {})
        _refuse_pull_request(rel, record or {}, image, images)
        try:
            allowed = image is not None and is_allowed(image, images.repositories)
            pinned = image is not None and is_pinned(image)
        except ImageError:
            allowed = pinned = False
        if image is not None and not allowed:
            msg = (
                f"{rel}: image '{one_line(image)}' is not of a declared image repository "
                f"({', '.join(images.repositories)}): the run is not admitted"
            )
            raise ResultsError(msg)
        if pinned:
            kept.append((path, rel))
        else:
            not_pinned.append(rel)
    return kept, not_pinned
