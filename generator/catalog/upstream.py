"""The flags SGLang and lm-eval accept, per supported release: the index of the flag tables.

scripts/flag_tables.py writes one table per release under `flagtables/` from the released
wheels' source, and `index.json`, which merges them: every option string of each parser
with the runs of releases that have it. A catalog load reads the index only. SGLang builds
its parsers with argparse's default `allow_abbrev=True`: a unique prefix of a flag is that
flag (`--hos` is `--host`) and a prefix of several is refused as ambiguous. The catalog
writes every flag in full, so its flag identity (one value per flag, the lint rules) is
what the server reads (docs/lint.md, "SGLang's own flags").
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

SGLANG = "sglang"
LM_EVAL = "lm-eval"
SERVER = "server"
# What the launcher sets on every server (generator/core/commands.py server_argv).
LAUNCHER_DESTS = ("model_path", "host", "port")
# The model arguments the launcher passes to lm-eval's local-completions itself.
LAUNCHER_MODEL_ARGS = ("base_url", "model")
_COUNTS = {"0": "no value (write `true`)", "1": "one value", "?": "at most one value"}


def takes(nargs: str, count: int) -> bool:
    """Whether an argparse action of `nargs` takes `count` values."""
    if nargs == "?":
        return count <= 1
    if nargs == "*":
        return True
    if nargs == "+":
        return count >= 1
    return count == int(nargs)


def wants(nargs: str) -> str:
    if nargs in _COUNTS:
        return _COUNTS[nargs]
    return "one value or more" if nargs == "+" else f"{nargs} values"


@dataclass(frozen=True, kw_only=True)
class OptionRun:
    """Releases `first` to `last` (indexes, oldest first) have an option with this value
    count and dest."""

    nargs: str
    dest: str
    first: int
    last: int

    def covers(self, release: int) -> bool:
        return self.first <= release <= self.last


@dataclass(frozen=True, kw_only=True)
class Retired:
    """Releases `first` to `last` retire an option string and say this of it: the flag to
    use instead, the date SGLang's source gives for its removal, and whether the launch
    refuses it (SGLang's `DeprecatedAction` with an error message)."""

    first: int
    last: int
    use: str | None
    remove_after: str | None
    refused: bool

    def covers(self, release: int) -> bool:
        return self.first <= release <= self.last


@dataclass(frozen=True, kw_only=True)
class Index:
    """One tool's supported releases and, per parser, every option string's runs and what
    the releases that retire an option say of it."""

    releases: tuple[str, ...]
    parsers: Mapping[str, Mapping[str, tuple[OptionRun, ...]]]
    keywords: Mapping[str, tuple[str, ...]]
    deprecated: Mapping[str, Mapping[str, tuple[Retired, ...]]]


def table_text(name: str) -> str:
    return resources.files("generator.catalog").joinpath(f"flagtables/{name}").read_text()


@functools.cache
def index(tool: str) -> Index:
    data = json.loads(table_text("index.json"))[tool]
    return Index(
        releases=tuple(data["releases"]),
        parsers={
            parser: {
                option: tuple(
                    OptionRun(nargs=str(n), dest=str(d), first=int(a), last=int(b))
                    for n, d, a, b in runs
                )
                for option, runs in options.items()
            }
            for parser, options in data["parsers"].items()
        },
        keywords={name: tuple(words) for name, words in data["keywords"].items()},
        deprecated={
            parser: {
                option: tuple(
                    Retired(
                        first=int(a),
                        last=int(b),
                        use=None if use is None else str(use),
                        remove_after=None if after is None else str(after),
                        refused=bool(refused),
                    )
                    for a, b, use, after, refused in notes
                )
                for option, notes in options.items()
            }
            for parser, options in data["deprecated"].items()
        },
    )


def span(versions: list[str] | tuple[str, ...]) -> str:
    """`0.5.9` or `0.5.9 to 0.5.19`."""
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"


def supported(tool: str = SGLANG) -> str:
    return f"{'SGLang' if tool == SGLANG else tool} {span(index(tool).releases)}"


def parsers_known() -> tuple[str, ...]:
    """The parser names the tables hold: `server` and the client and evaluator modules."""
    return tuple(index(SGLANG).parsers)
