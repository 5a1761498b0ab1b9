"""Selectors (declared fields to match) and the schedules and presets that select with them."""

from __future__ import annotations

from dataclasses import dataclass

from generator.catalog.catalog_types import PER_SERVER, Config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Case, Packing
    from generator.errors import Loc


@dataclass(frozen=True, kw_only=True)
class Selector:
    """Declared fields to match; each field matches any of its values."""

    fields: tuple[tuple[str, tuple[str, ...]], ...]

    def matches(self, owner: Config | Case) -> bool:
        """Every field the selector names has one of its values on `owner`."""
        return all(field_value(owner, field) in values for field, values in self.fields)


# The fields a selector may name.
SELECTOR_FIELDS = ("suite", "family", "precision", "spec", "model", "prefix")


def field_value(owner: Config | Case, field: str) -> str | None:
    """A selector field of a config or case. A case has a suite and a prefix only through
    the benchmark config it is linked to (`benchmark:`)."""
    if field == "family":
        return owner.model.family
    if field == "precision":
        return owner.model.precision
    if field == "spec":
        return owner.spec
    if field == "model":
        return owner.model.name
    if isinstance(owner, Config):
        return owner.suite if field == "suite" else owner.prefix
    return owner.benchmark_suite if field == "suite" else owner.benchmark


def matches(owner: Config | Case, selectors: tuple[Selector, ...]) -> bool:
    """A list of selectors is their union."""
    return any(sel.matches(owner) for sel in selectors)


@dataclass(frozen=True, kw_only=True)
class Schedule:
    name: str
    title: str
    cron: str
    server_mode: str | None
    select: tuple[Selector, ...]
    packing: Packing = PER_SERVER
    loc: Loc
    select_loc: Loc


@dataclass(frozen=True, kw_only=True)
class Preset:
    suite: str
    name: str
    aliases: tuple[str, ...]
    select: tuple[Selector, ...]
    per_config: bool
    packing: Packing = PER_SERVER
    loc: Loc
    select_loc: Loc
