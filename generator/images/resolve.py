"""One reference to one pinned image: a tag to its digest, a nightly pattern to the
newest nightly in the window and its digest; a digest stays as written."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from generator.imageref.reference import ImageError, Reference, parse_reference
from generator.images.registry import Registry, RegistryClient
from generator.images.transport import RegistryError, RegistryUnreachable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

RESOLVE_ENV = "SGLANG_CI_RESOLVE_IMAGES"

ResolutionPath = Literal["tag", "digest", "today", "earlier", "unpinned"]


@dataclass(frozen=True, kw_only=True)
class Resolution:
    """How a requested reference was pinned. `path`: `tag` (a tag looked up), `digest`
    (pinned as requested), `today` (today's nightly), `earlier` (the newest earlier
    nightly in the window, `days_back` days before today), `unpinned` (resolution off)."""

    requested: str
    name: str
    tag: str | None
    digest: str | None
    pinned: str | None
    path: ResolutionPath
    days_back: int | None = None

    @property
    def image(self) -> str:
        """The reference a job runs: the pinned one, else the requested text."""
        return self.pinned or self.requested


def registry_from_env(environ: Mapping[str, str]) -> RegistryClient | None:
    """A registry client, or None when `SGLANG_CI_RESOLVE_IMAGES=0` turns resolution off."""
    value = environ.get(RESOLVE_ENV, "")
    if value not in ("", "0", "1"):
        msg = f"{RESOLVE_ENV} is 0 (off) or 1 (on, the default), not '{value}'"
        raise ImageError(msg)
    return None if value == "0" else RegistryClient()


def resolve(requested: str, today: date, window_days: int, client: Registry | None) -> Resolution:
    """Pin `requested` (None as the client: resolution is off). A nightly pattern takes
    today's tag, else the newest within the `window_days` days before today."""
    if window_days < 0:
        msg = f"the nightly window is {window_days} days; it cannot be negative"
        raise ImageError(msg)
    ref = parse_reference(requested)
    if ref.digest is not None:
        pinned = f"{ref.name}@{ref.digest}"
        return _resolution(ref, ref.tag, ref.digest, pinned, "digest")
    if client is None:
        if ref.pattern is not None:
            msg = (
                f"{requested}: a nightly pattern names no tag to run while {RESOLVE_ENV}=0 "
                "turns resolution off; name a tag, or turn resolution on"
            )
            raise ImageError(msg)
        return _resolution(ref, ref.tag, None, None, "unpinned")
    try:
        if ref.pattern is None:
            tag = ref.tag or "latest"
            digest = client.digest(ref, tag)
            return _resolution(ref, tag, digest, f"{ref.name}@{digest}", "tag")
        return _nightly(ref, client, today, window_days)
    except RegistryUnreachable as exc:
        offline = (
            f"{RESOLVE_ENV}=0 (the workflows' resolve_images: false) runs it unpinned"
            if ref.pattern is None
            else f"a nightly pattern needs it: name a tag and set {RESOLVE_ENV}=0 (the "
            "workflows' resolve_images: false) to run it unpinned"
        )
        msg = f"{requested}: {exc.message}; without the registry, {offline}"
        raise ImageError(msg) from exc
    except RegistryError as exc:
        msg = f"{requested}: {exc.message}"
        raise ImageError(msg) from exc


def _nightly(ref: Reference, client: Registry, today: date, window_days: int) -> Resolution:
    assert ref.pattern is not None
    listed = client.tags(ref)
    nightlies = [n for n in map(ref.pattern.match, listed) if n is not None]
    first = today - timedelta(days=window_days)
    in_window = [n for n in nightlies if first <= n.date <= today]
    if not in_window:
        older = [n for n in nightlies if n.date < first]
        newest = max(older or nightlies, key=lambda n: n.key, default=None)
        found = (
            f"newest: {newest.tag} on {newest.date.isoformat()}"
            if newest
            else f"no tag matches the pattern among {len(listed)} tags"
        )
        msg = (
            f"no tag matching {ref.text} between {first.isoformat()} and {today.isoformat()} "
            f"(today and the {window_days} days before; {found})"
        )
        raise ImageError(msg)
    chosen = max(in_window, key=lambda n: n.key)
    digest = client.digest(ref, chosen.tag)
    days_back = (today - chosen.date).days
    path: ResolutionPath = "today" if days_back == 0 else "earlier"
    return _resolution(ref, chosen.tag, digest, f"{ref.name}@{digest}", path, days_back)


def _resolution(
    ref: Reference,
    tag: str | None,
    digest: str | None,
    pinned: str | None,
    path: ResolutionPath,
    days_back: int | None = None,
) -> Resolution:
    return Resolution(
        requested=ref.text,
        name=ref.name,
        tag=tag,
        digest=digest,
        pinned=pinned,
        path=path,
        days_back=days_back,
    )
