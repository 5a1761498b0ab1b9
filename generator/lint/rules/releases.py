"""SGLang releases: every server's flags against the releases its images may carry
(images.sglang in benchmark.yaml, docs/images.md), and the client's against the newest."""

from __future__ import annotations

from generator.catalog.flag_checks import dropped
from generator.catalog.release_flags import deprecation, release_problem, renamings
from generator.catalog.upstream import SERVER, SGLANG, index, parsers_known, span
from generator.lint.rules.base import Hit, LintContext, Owner
from generator.lint.rules.flag_uses import uses

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from generator.catalog.server_types import Flag
    from generator.lint.rules.flag_uses import Use


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


def _hits(use: Use) -> Iterator[Hit]:
    """L802 flag-refused-by-release (error): a release the servers' images may carry has no
    such flag (under any name SGLang gave it), takes another number of values, or stops
    the launch on it. L801 flag-dropped (warning): such a release knows it by another
    name, which the launcher gives it there (generator/core/commands.py). L803
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


def check(ctx: LintContext) -> Iterator[Hit]:
    catalog = ctx.catalog
    for use in uses(catalog, ctx.servers):
        yield from _hits(use)
    modules = parsers_known()
    for client in catalog.clients:
        if client.module in modules:
            yield from _dropped(client.args, None, client.module)
