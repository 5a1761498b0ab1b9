"""A run's matrix with every image pinned, each distinct reference resolved once, and the
step-summary block that lists what each one became."""

from __future__ import annotations

from typing import Generic, TypedDict, TypeVar

from generator.core.contract import CaseEntry, JobEntry
from generator.imageref.reference import ImageError
from generator.images.resolve import RESOLVE_ENV, Resolution, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import date

    from generator.images.registry import Registry

EntryT = TypeVar("EntryT", JobEntry, CaseEntry)


class Matrix(TypedDict, Generic[EntryT]):
    """A GitHub Actions matrix of the launcher's entries: render writes the committed ones,
    the select step pins their images (`resolve_matrix`)."""

    include: list[EntryT]


JobOrCaseMatrix = Matrix[JobEntry] | Matrix[CaseEntry]


def resolve_matrix(
    matrix: Matrix[EntryT], today: date, window_days: int, client: Registry | None
) -> tuple[Matrix[EntryT], tuple[Resolution, ...]]:
    """`matrix` (`{"include": [entry, ...]}`) with each entry's `image` pinned and
    `image_requested`, `image_tag`, `image_digest` (`""` when none) and `image_resolution`
    (the path taken) added; and the resolutions, in the order their images first appear."""
    entries = matrix.get("include")
    if not isinstance(entries, list):
        msg = "the matrix has no 'include' list of entries"
        raise ImageError(msg)
    resolved: dict[str, Resolution] = {}
    pinned: list[EntryT] = []
    for index, entry in enumerate(entries):
        where = entry.get("id", f"#{index}") if isinstance(entry, dict) else f"#{index}"
        image = entry.get("image") if isinstance(entry, dict) else None
        if not isinstance(image, str) or not image:
            msg = f"matrix entry {where}: no image to resolve"
            raise ImageError(msg)
        if image not in resolved:
            resolved[image] = resolve(image, today, window_days, client)
        r = resolved[image]
        done = entry.copy()
        done["image"] = r.image
        done["image_requested"] = r.requested
        done["image_tag"] = r.tag or ""
        done["image_digest"] = r.digest or ""
        done["image_resolution"] = r.path
        pinned.append(done)
    return {**matrix, "include": pinned}, tuple(resolved.values())


def describe(r: Resolution) -> str:
    """The path a resolution took, in words."""
    if r.path == "tag":
        return "tag looked up"
    if r.path == "digest":
        return "pinned by digest as requested"
    if r.path == "today":
        return "today's nightly"
    if r.path == "earlier":
        days = r.days_back or 0
        return f"earlier nightly, {days} day{'s' if days != 1 else ''} back"
    return f"not pinned ({RESOLVE_ENV}=0)"


def summary_markdown(resolutions: Sequence[Resolution]) -> str:
    """A Markdown block for `$GITHUB_STEP_SUMMARY`: each image, requested, tag, digest and
    the path taken. The grammar keeps `|` and backticks out of every cell."""
    lines = ["### Container images", ""]
    if not resolutions:
        return "\n".join([*lines, "No container image in this run.", ""])
    lines += ["| Requested | Tag | Digest | Resolution |", "| --- | --- | --- | --- |"]
    for r in resolutions:
        tag = f"`{r.tag}`" if r.tag else "-"
        digest = f"`{r.digest}`" if r.digest else "not pinned"
        lines.append(f"| `{r.requested}` | {tag} | {digest} | {describe(r)} |")
    return "\n".join([*lines, ""])
