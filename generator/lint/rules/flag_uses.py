"""Which servers pass each flag the catalog writes: the line and owner that write it, the
images each server may run and the SGLang releases those may carry (rules/releases.py
checks the flags against them)."""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.catalog.flags import canonical
from generator.catalog.image_releases import carried, declared
from generator.catalog.parallel_layout import WRITTEN
from generator.catalog.release_flags import argv_flags

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.catalog.catalog_types import Catalog
    from generator.errors import Loc
    from generator.lint.rules.base import Owner, Resolved


@dataclass(frozen=True, kw_only=True)
class _Written:
    """Where a server's flag is written, and whose waivers may excuse a finding on it."""

    loc: Loc
    owner: Owner | None


def _written(catalog: Catalog, server: Resolved) -> dict[str, _Written]:
    """The flags of `server` by canonical name, at the line that writes them: the server
    mode's, then the config's or case's own and its per-pair extras (the owner's line wins)."""
    out: dict[str, _Written] = {}
    mode = catalog.mode(server.server.mode)
    for flag in mode.args:
        out[canonical(flag.name)] = _Written(loc=flag.loc, owner=None)
    owner = server.owner
    own = list(owner.args)
    if server.pair is not None and hasattr(owner, "extras_for"):
        extras = owner.extras_for(server.pair)
        own += list(extras.args) if extras else []
    for flag in own:
        out[canonical(flag.name)] = _Written(loc=flag.loc, owner=owner)
    return out


def images_of(catalog: Catalog, server: Resolved) -> tuple[str, ...]:
    """The images (or repositories) a server may run: a config's, any of its server mode's
    repositories (a dispatch names the image); a case's, its own images or the default."""
    case_images = getattr(server.owner, "images", None)
    if case_images is not None and hasattr(server.owner, "levels"):
        return tuple(pattern for _, pattern in case_images) or (catalog.default_image,)
    return catalog.mode(server.server.mode).image_repositories or (catalog.default_image,)


@dataclass(frozen=True, kw_only=True)
class _Passing:
    """One server that passes a written flag: who, the images it may run, the releases
    they may carry, and the number of values it passes."""

    where: str
    images: tuple[str, ...]
    carry: tuple[str, ...]
    count: int


@dataclass(kw_only=True)
class Use:
    """One written flag over every server that passes it. A flag `parallel:` writes is one
    use over every config and case (at the first one's line): a finding on it is one, and
    the fix is the generator's spelling, not a line of the catalog."""

    name: str
    at: _Written
    servers: dict[_Passing, None]  # in the order first seen, each once
    owners: set[int] = field(default_factory=set)

    @property
    def shown(self) -> str:
        if canonical(self.name) not in WRITTEN:
            return self.name
        more = len(self.owners) - 1
        also = f" here and in {more} more configs and cases" if more else ""
        return f"{self.name} (written from parallel:{also})"


def uses(catalog: Catalog, servers: Iterable[Resolved]) -> list[Use]:
    """Each written flag (by line and owner) with the servers that pass it."""
    found: dict[tuple[Loc | None, int, str], Use] = {}
    for server in servers:
        images = images_of(catalog, server)
        carry = carried(catalog, images)
        shown = tuple(sorted({declared(catalog, i).repository for i in images}))
        written = _written(catalog, server)
        for name, count in argv_flags(server.server.args):
            at = written.get(canonical(name))
            if at is None:
                continue
            key = (None, 0, name) if canonical(name) in WRITTEN else (at.loc, id(at.owner), name)
            use = found.setdefault(key, Use(name=name, at=at, servers={}))
            use.owners.add(id(server.owner))
            passing = _Passing(
                where=f"{server.name} ({server.server.mode})",
                images=shown,
                carry=carry,
                count=count,
            )
            use.servers.setdefault(passing)
    return list(found.values())
