"""The select step's check of a run's servers against the SGLang its pinned images carry:
each image's release known from its tag, a label of its image config or the catalog
(`images.sglang`, docs/images.md), each server's flags checked against that release's
flag table before any GPU job starts (the catalog's range when no release is known)."""

from __future__ import annotations

from dataclasses import dataclass

from generator.catalog.image_releases import declared, from_tag
from generator.catalog.release_flags import argv_flags, release_at, release_problem
from generator.catalog.upstream import SERVER, SGLANG, index, span, supported
from generator.errors import SelectionError
from generator.imageref.reference import parse_reference
from generator.images.registry import LabelReader
from generator.images.transport import RegistryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from generator.catalog.catalog_types import Catalog
    from generator.core.contract import ServerEntry
    from generator.images.matrix import EntryT, Matrix
    from generator.images.registry import Registry


@dataclass(frozen=True, kw_only=True)
class Carried:
    """What a run knows of the SGLang an image carries: `release` when it is known (with
    `how`), and the releases its servers are checked against (that one, the catalog's
    range, or none when the release has no flag table)."""

    image: str  # as requested
    release: str | None
    how: str
    checked: tuple[str, ...]


def carried_by(catalog: Catalog, entry: ServerEntry, client: Registry | None) -> Carried:
    """The SGLang release of a pinned entry's image."""
    requested = str(entry.get("image_requested") or entry["image"])
    item = declared(catalog, requested)
    named: str | None = None
    how = ""
    if item.release:
        named, how = item.release, "stated in the catalog"
    elif item.tag:
        tag = entry.get("image_tag") or parse_reference(requested).tag
        named = from_tag(item, str(tag) if tag else None)
        how = f"from its tag {tag}" if named else ""
    elif item.label and entry.get("image_digest") and isinstance(client, LabelReader):
        ref = parse_reference(requested)
        try:
            named = client.labels(ref, str(entry["image_digest"])).get(item.label)
        except RegistryError as exc:
            msg = f"image '{requested}': cannot read its label {item.label}: {exc.message}"
            raise SelectionError(msg) from exc
        how = f"from its label {item.label}" if named else ""
    if named is None:
        if item.label:
            why = f"no label {item.label} read" if entry.get("image_digest") else "not pinned"
        elif item.tag:
            why = f"its tag names none ({item.tag})"
        else:
            why = "the catalog names no way to know it"
        return Carried(image=requested, release=None, how=why, checked=item.releases)
    found = release_at(named)
    if found is None:
        return Carried(
            image=requested,
            release=named,
            how=f"{how}; no flag table ({supported()}): not checked, make flag-tables",
            checked=(),
        )
    version = index(SGLANG).releases[found]
    return Carried(image=requested, release=version, how=how, checked=(version,))


def check_matrix(
    catalog: Catalog, matrix: Matrix[EntryT], client: Registry | None
) -> tuple[Carried, ...]:
    """The release of each distinct image of a pinned matrix; SelectionError (exit 2, one
    line) at the first entry whose server a release of its image refuses."""
    seen: dict[str, Carried] = {}
    for entry in matrix["include"]:
        key = f"{entry.get('image_requested') or entry['image']}@{entry.get('image_digest', '')}"
        if key not in seen:
            seen[key] = carried_by(catalog, entry, client)
        known = seen[key]
        for release in known.checked:
            at = release_at(release)
            assert at is not None  # checked releases have tables
            for name, count in argv_flags(entry["server_args"]):
                problem = release_problem(SERVER, name, count, at)
                if problem is None:
                    continue
                kind = "job" if "points" in entry else "case"
                carries = (
                    f"carries SGLang {release} ({known.how})"
                    if known.release
                    else f"may carry SGLang {span(known.checked)} ({known.how})"
                )
                msg = (
                    f"{kind} {entry['id']} ({entry['server_mode']}): image '{known.image}' "
                    f"{carries}: {problem}; no GPU job started"
                )
                raise SelectionError(msg)
    return tuple(seen.values())


def summary_markdown(found: Sequence[Carried]) -> str:
    """The step-summary block: each image's SGLang release and how it is known."""
    if not found:
        return ""
    lines = ["### SGLang releases", "", "| Image | SGLang | Known |", "| --- | --- | --- |"]
    lines += [f"| `{c.image}` | {c.release or '-'} | {c.how} |" for c in found]
    return "\n".join([*lines, ""]) + "\n"
