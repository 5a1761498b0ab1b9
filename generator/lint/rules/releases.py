"""SGLang releases: a flag the catalog sets that the newest supported release no longer has."""

from __future__ import annotations

from generator.catalog.upstream import SERVER, dropped, parsers_known
from generator.lint.rules.base import Context, Hit, Owner

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from generator.catalog.model import Flag


def _flags(flags: Iterable[Flag], owner: Owner | None, parser: str) -> Iterator[Hit]:
    """L801 flag-dropped (warning): the loader refuses a flag no supported release knows;
    one that only older releases know still starts a server on their images, but the
    newest release refuses it (an unknown flag, or an ambiguous prefix of its new ones)."""
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


def check(ctx: Context) -> Iterator[Hit]:
    catalog = ctx.catalog
    for config in catalog.configs:
        yield from _flags(config.args, config, SERVER)
        for _, extras in config.per_pair:
            yield from _flags(extras.args, config, SERVER)
    for case in catalog.cases:
        yield from _flags(case.args, case, SERVER)
    for mode in catalog.server_modes:
        yield from _flags(mode.args, None, SERVER)
    modules = parsers_known()
    for client in catalog.clients:
        if client.module in modules:
            yield from _flags(client.args, None, client.module)
