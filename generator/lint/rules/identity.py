"""Names that must be unique, one spelling per model path, fragments that are used."""

from __future__ import annotations

from collections import Counter
from typing import TypeVar

from generator.lint.rules.base import Hit, LintContext, Owner, hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from generator.catalog.catalog_types import Catalog
    from generator.catalog.server_types import Model

T = TypeVar("T", bound=Owner)


def _unique(
    rule: str, what: str, items: Iterable[T], key: Callable[[T], str | None], fix: str
) -> Iterator[Hit]:
    first: dict[str, T] = {}
    for item in items:
        value = key(item)
        if value is None:
            continue
        if value in first:
            yield hit(
                rule,
                item,
                f"{what} '{value}' is already used at line {first[value].loc.line}; {fix}",
            )
        else:
            first[value] = item


def unique_names(catalog: Catalog) -> Iterator[Hit]:
    """L603-L604: display names, case names and dashboard models are unique.

    They name dropdown options, summaries and dashboard series; a repeat mixes two servers'
    results. (Prefixes and case ids are checked when the catalog is loaded.)
    """
    yield from _unique(
        "L603",
        "display name",
        catalog.configs,
        lambda c: c.display,
        "dropdowns and summaries show it: rename one",
    )
    yield from _unique("L603", "case name", catalog.cases, lambda c: c.name, "rename one")
    yield from _unique(
        "L604",
        "dashboard model",
        catalog.configs,
        lambda c: c.dashboard_model or c.display,
        "two configs would share a dashboard series: rename one",
    )


def _uses(catalog: Catalog) -> list[tuple[Model, Owner | None]]:
    owners: list[Owner] = [*catalog.configs, *catalog.cases]
    out: list[tuple[Model, Owner | None]] = [(owner.model, owner) for owner in owners]
    used = {m for m, _ in out}
    return out + [(m, None) for m in catalog.models if m not in used]


def model_path_spelling(catalog: Catalog) -> Iterator[Hit]:
    """L605: one spelling per model path (compared case-insensitively).

    Hugging Face repo ids are case-insensitive on the Hub but not in a cache directory or a
    dashboard key: `amd/DeepSeek-R1-0528-MXFP4-v2` and `...-V2` download the weights twice
    and split the results. The most used spelling is taken as the right one.
    """
    uses = _uses(catalog)
    counts = Counter(m.path for m, _ in uses)
    groups: dict[str, list[str]] = {}
    for path in counts:
        groups.setdefault(path.lower(), []).append(path)
    for spellings in groups.values():
        if len(spellings) < 2:
            continue
        best = max(spellings, key=lambda p: (counts[p], -spellings.index(p)))
        for model, owner in uses:
            if model.path != best and model.path in spellings:
                yield Hit(
                    rule="L605",
                    loc=model.loc,
                    owner=owner,
                    message=(
                        f"model path '{model.path}' is also spelled '{best}'; use one spelling"
                    ),
                )


def unused_fragments(catalog: Catalog) -> Iterator[Hit]:
    """L606 (warning): an args/env fragment no config or case uses.

    An unused fragment is either dead text or a fragment someone forgot to add to a config.
    """
    owners: list[Owner] = [*catalog.configs, *catalog.cases]
    used = {name for owner in owners for name in owner.fragments}
    for kind, fragments in (("args", catalog.arg_fragments), ("env", catalog.env_fragments)):
        for name, _, loc in fragments:
            if name not in used:
                yield Hit(
                    rule="L606",
                    loc=loc,
                    message=(
                        f"{kind} fragment '{name}' is used by no config or case; use it or "
                        f"delete it"
                    ),
                )


def check(ctx: LintContext) -> Iterator[Hit]:
    catalog = ctx.catalog
    yield from unique_names(catalog)
    yield from model_path_spelling(catalog)
    yield from unused_fragments(catalog)
