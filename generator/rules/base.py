"""What every lint rule shares: the rule table, a hit, and the resolved servers to look at."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

from generator.errors import CatalogError, Loc
from generator.expand import Server, case_server, config_server
from generator.flags import canonical
from generator.memo import once
from generator.model import Case, Catalog, Config, Pair

ERROR = "error"
WARNING = "warning"

# Rule id -> (name, severity). Ids are stable: a retired rule's id is never reused.
RULES: dict[str, tuple[str, str]] = {
    "L001": ("waiver-unknown-rule", ERROR),
    "L002": ("waiver-unused", WARNING),
    "L100": ("server-resolves", ERROR),
    "L101": ("dp-attention-divisible", ERROR),
    "L102": ("ep-divides-tp", ERROR),
    "L103": ("layout-matches-flags", ERROR),
    "L201": ("gpus-fit-runner", ERROR),
    "L301": ("spec-draft-model", WARNING),
    "L302": ("spec-draft-tokens", ERROR),
    "L303": ("spec-params-together", ERROR),
    "L304": ("cuda-graph-covers-concurrency", WARNING),
    "L305": ("spec-field-matches-flags", ERROR),
    "L401": ("accuracy-matches-benchmark", ERROR),
    "L402": ("accuracy-unset-allowed", ERROR),
    "L501": ("env-forbidden", ERROR),
    "L502": ("env-renamed", ERROR),
    "L503": ("env-retired", WARNING),
    "L504": ("env-name-shell", ERROR),
    "L505": ("env-value-single-line", ERROR),
    "L601": ("unique-prefix", ERROR),
    "L602": ("unique-case-id", ERROR),
    "L603": ("unique-display-name", ERROR),
    "L604": ("unique-dashboard-model", ERROR),
    "L605": ("model-path-spelling", ERROR),
    "L606": ("unused-fragment", WARNING),
    "L701": ("matrix-jobs", ERROR),
    "L702": ("job-output-size", ERROR),
    "L703": ("dispatch-inputs", ERROR),
    "L704": ("expression-length", ERROR),
    "L705": ("cron-github", ERROR),
    "L706": ("selection-empty", ERROR),
    "L707": ("run-ends-before-next", WARNING),
}

Owner = Config | Case


@dataclass(frozen=True, kw_only=True)
class Hit:
    """One rule firing; `owner` is the config or case whose waivers may excuse it."""

    rule: str
    loc: Loc
    message: str
    owner: Owner | None = None


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


def servers(catalog: Catalog) -> tuple[Resolved | Hit, ...]:
    """Every server: each config in each pair and server mode of its suite, then each case.

    A server that cannot be resolved is a hit instead (rule L100). Worked out once per
    catalog: several rule modules look at the same servers.
    """
    return once(catalog, "lint servers", lambda: tuple(_servers(catalog)))


def _servers(catalog: Catalog) -> Iterator[Resolved | Hit]:
    for config in catalog.configs:
        for mode in catalog.suite(config.suite).server_modes:
            for pair, _ in config.grid:
                try:
                    server = config_server(catalog, config, pair, mode)
                except CatalogError as e:
                    yield Hit(rule="L100", loc=e.loc or config.loc, message=e.message, owner=config)
                    continue
                yield Resolved(
                    owner=config, server=server, pair=pair, name=f"config '{config.prefix}'"
                )
    for case in catalog.cases:
        try:
            yield Resolved(owner=case, server=case_server(catalog, case), name=f"case '{case.id}'")
        except CatalogError as e:
            yield Hit(rule="L100", loc=e.loc or case.loc, message=e.message, owner=case)
