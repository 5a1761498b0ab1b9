"""One release's own flag table (`generator/catalog/flagtables/<tool>-<version>.json`), as its
parsers declare them: every argparse action with its option strings, dest and value count.
The catalog reads the merged index only (generator.catalog.upstream); the tests read these."""

from __future__ import annotations

import json
from dataclasses import dataclass

from generator.catalog.upstream import table_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True, kw_only=True)
class Action:
    """One argparse action of one release: its option strings, dest and value count."""

    nargs: str
    dest: str
    options: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Release:
    name: str
    version: str
    parsers: Mapping[str, Mapping[str, Action]]  # parser -> option string -> action
    allow_abbrev: Mapping[str, bool]
    keywords: Mapping[str, tuple[str, ...]]
    refused: Mapping[str, frozenset[str]]  # parser -> the retired flags it stops on


def release(tool: str, version: str) -> Release:
    """One release's own table (`<tool>-<version>.json`), as its parsers declare them."""
    data = json.loads(table_text(f"{tool}-{version}.json"))
    parsers: dict[str, dict[str, Action]] = {}
    for name, raw in data["parsers"].items():
        for nargs, dest, *options in raw.get("actions", ()):
            derived = next((o for o in options if o.startswith("--")), options[0])
            action = Action(
                nargs=nargs,
                dest=dest or derived.lstrip("-").replace("-", "_"),
                options=tuple(options),
            )
            parsers.setdefault(name, {}).update(dict.fromkeys(options, action))
    return Release(
        name=tool,
        version=version,
        parsers=parsers,
        allow_abbrev={
            k: bool(v["allow_abbrev"]) for k, v in data["parsers"].items() if "actions" in v
        },
        keywords={k: tuple(v["keywords"]) for k, v in data["parsers"].items() if "keywords" in v},
        refused={
            k: frozenset(o for o, note in v.get("deprecated", {}).items() if note["refused"])
            for k, v in data["parsers"].items()
            if "actions" in v
        },
    )
