"""SGLang releases: every server's flags against the releases its images may carry
(images.sglang in benchmark.yaml, docs/images.md), and the client's against the newest."""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.catalog.flag_checks import dropped
from generator.catalog.flags import canonical
from generator.catalog.image_releases import carried, declared
from generator.catalog.parallel_layout import WRITTEN
from generator.catalog.release_flags import argv_flags, deprecation, release_problem, renamings
from generator.catalog.upstream import SERVER, SGLANG, index, parsers_known, span
from generator.lint.rules.base import Context, Hit, Owner

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from generator.catalog.catalog_types import Catalog
    from generator.catalog.server_types import Flag
    from generator.errors import Loc
    from generator.lint.rules.base import Resolved


def _dropped(flags: Iterable[Flag], owner: Owner | None, parser: str) -> Iterator[Hit]:
    """L801 flag-dropped (warning) on a client's flags: the loader refuses a flag no
    supported release knows; one that only older releases know still runs on their
    images, but the newest release refuses it."""
    for flag in flags:
        found = dropped(parser, flag.name)
        if found is None:
            continue
        known, first = found
        yield Hit(
            rule="L801",
            loc=flag.loc,
            owner=owner,
            message=(
                f"{flag.name} is a flag of SGLang {known} only, {first} and later refuse it: "
                "replace it before the runners' images carry a newer SGLang"
            ),
        )


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
class _Use:
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


def _uses(catalog: Catalog, servers: Iterable[Resolved]) -> list[_Use]:
    """Each written flag (by line and owner) with the servers that pass it."""
    uses: dict[tuple[Loc | None, int, str], _Use] = {}
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
            use = uses.setdefault(key, _Use(name=name, at=at, servers={}))
            use.owners.add(id(server.owner))
            passing = _Passing(
                where=f"{server.name} ({server.server.mode})",
                images=shown,
                carry=carry,
                count=count,
            )
            use.servers.setdefault(passing)
    return list(uses.values())


def _hits(use: _Use) -> Iterator[Hit]:
    """L802 flag-refused-by-release (error): a release the servers' images may carry has no
    such flag (under any name SGLang gave it), takes another number of values, or stops
    the launch on it. L801 flag-dropped (warning): such a release knows it by another
    name, which the launcher gives it there (generator/launch/commands.py). L803
    flag-deprecated (warning): such a release retired it and says what to use."""
    names = index(SGLANG).releases
    carried = {v for p in use.servers for v in p.carry}
    carry = [v for v in names if v in carried]
    at = use.at
    # What a release says of the flag depends on the release and the number of values
    # alone: asked once each, however many servers pass it.
    problems: dict[tuple[int, str], str | None] = {}
    failing = []
    for p in use.servers:
        for v in p.carry:
            if (p.count, v) not in problems:
                problems[p.count, v] = release_problem(SERVER, use.name, p.count, names.index(v))
            if (problem := problems[p.count, v]) is not None:
                failing.append((p, v, problem))
    if failing:
        server, _, problem = failing[0]
        refusing = [v for v in names if any(f[1] == v for f in failing)]
        yield Hit(
            rule="L802",
            loc=at.loc,
            owner=at.owner,
            message=(
                f"{server.where}: {problem}; images of {', '.join(server.images)} may carry "
                f"SGLang {span(server.carry)}, and {span(refusing)} "
                f"{'refuses' if len(refusing) == 1 else 'refuse'} it"
            ),
        )
        return
    renamed = False
    for spelled, first, last in renamings(SERVER, use.name):
        there = [v for v in carry if names.index(first) <= names.index(v) <= names.index(last)]
        if there:
            renamed = True
            later = " (and later)" if last == names[-1] and there[-1] == last else ""
            yield Hit(
                rule="L801",
                loc=at.loc,
                owner=at.owner,
                message=(
                    f"{use.shown} is {spelled} in SGLang {span(there)}{later}: the launcher "
                    f"gives it that name there; write {spelled} once every image carries a "
                    "release that has it"
                ),
            )
    retired = [(v, n) for v in carry if (n := deprecation(SERVER, use.name, names.index(v)))]
    if retired and not renamed:  # a renamed flag's old name is retired: L801 says it
        note = retired[-1][1]
        instead = f"; use {note.use}" if note.use else ""
        until = f" (SGLang removes it after {note.remove_after})" if note.remove_after else ""
        yield Hit(
            rule="L803",
            loc=at.loc,
            owner=at.owner,
            message=(
                f"{use.shown} is deprecated in SGLang {span([v for v, _ in retired])}"
                f"{instead}{until}"
            ),
        )


def check(ctx: Context) -> Iterator[Hit]:
    catalog = ctx.catalog
    for use in _uses(catalog, ctx.servers):
        yield from _hits(use)
    modules = parsers_known()
    for client in catalog.clients:
        if client.module in modules:
            yield from _dropped(client.args, None, client.module)
