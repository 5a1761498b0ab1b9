"""What every lint rule shares: a hit, and the resolved servers to look at (rule_table.py
names the rules)."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from generator.catalog.catalog_types import Case, Catalog, Config, Pair
from generator.catalog.flags import canonical

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from generator.catalog.server_types import Runner
    from generator.errors import Loc
    from generator.expand.expanded import Expanded, Server

Owner = Config | Case


@dataclass(frozen=True, kw_only=True)
class Hit:
    """One rule firing; `owner` is the config or case whose waivers may excuse it."""

    rule: str
    loc: Loc
    message: str
    owner: Owner | None = None


def hit(rule: str, owner: Owner, message: str, loc: Loc | None = None) -> Hit:
    """A finding on `owner`, at its line unless `loc` says where."""
    return Hit(rule=rule, loc=loc or owner.loc, owner=owner, message=message)


def flag_map(args: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """A resolved argv as canonical flag name -> values (the last one wins, as in argparse)."""
    out: dict[str, tuple[str, ...]] = {}
    name: str | None = None
    values: list[str] = []
    for token in [*args, "--"]:
        if token.startswith("--"):
            if name is not None:
                out[canonical(name)] = tuple(values)
            name, values = (token if token != "--" else None), []
        elif name is not None:
            values.append(token)
    return out


def int_flag(flags: dict[str, tuple[str, ...]], name: str, default: int = 1) -> int:
    values = flags.get(name)
    if not values:
        return default
    try:
        return int(values[0])
    except ValueError:
        return default


@dataclass(frozen=True, kw_only=True)
class Resolved:
    """A server the catalog starts, with who owns it and where to point a finding."""

    owner: Owner
    server: Server
    name: str  # "config 'x'" or "case 'y'", for messages
    pair: Pair | None = None

    @property
    def where(self) -> str:
        """The name with the server mode and pair, for findings that depend on them."""
        return f"{self.name} ({self.server.mode}, {self.pair})" if self.pair else self.name

    @functools.cached_property
    def flags(self) -> dict[str, tuple[str, ...]]:
        return flag_map(self.server.args)

    def hit(self, rule: str, message: str) -> Hit:
        return hit(rule, self.owner, message)


def servers(expanded: Expanded) -> Iterator[Resolved]:
    """Every server: each config in each pair and server mode of its suite, then each case."""
    catalog = expanded.catalog
    for config in catalog.configs:
        for mode in catalog.suite(config.suite).server_modes:
            seen: set[Pair] = set()
            for cell in expanded.cells[(config.prefix, mode)]:
                if cell.pair not in seen:
                    seen.add(cell.pair)
                    yield Resolved(
                        owner=config,
                        server=cell.server,
                        pair=cell.pair,
                        name=f"config '{config.prefix}'",
                    )
    done: set[str] = set()
    for run in expanded.case_runs:
        if run.case.id not in done:
            done.add(run.case.id)
            seen_servers: list[Server] = []
            for level in run.case.levels:
                server = run.server_at(level)
                if server not in seen_servers:
                    seen_servers.append(server)
                    yield Resolved(owner=run.case, server=server, name=f"case '{run.case.id}'")


@dataclass(frozen=True, kw_only=True)
class LintContext:
    """What the rules look at: the expanded catalog and its servers, listed once."""

    expanded: Expanded
    servers: tuple[Resolved, ...]

    @property
    def catalog(self) -> Catalog:
        return self.expanded.catalog

    @functools.cached_property
    def runners(self) -> dict[str, Runner]:
        return {r.label: r for r in self.catalog.runners}


def context(expanded: Expanded) -> LintContext:
    return LintContext(expanded=expanded, servers=tuple(servers(expanded)))
