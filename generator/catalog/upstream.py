"""The flags SGLang and lm-eval accept, per supported release, and the catalog's checks on them.

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

from generator.errors import did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

SGLANG = "sglang"
LM_EVAL = "lm-eval"
SERVER = "server"
# What the launcher sets on every server (generator/launch/commands.py server_argv).
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
class Run:
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
    parsers: Mapping[str, Mapping[str, tuple[Run, ...]]]
    keywords: Mapping[str, tuple[str, ...]]
    deprecated: Mapping[str, Mapping[str, tuple[Retired, ...]]]


def _read(name: str) -> str:
    return resources.files("generator.catalog").joinpath(f"flagtables/{name}").read_text()


@functools.cache
def index(tool: str) -> Index:
    data = json.loads(_read("index.json"))[tool]
    return Index(
        releases=tuple(data["releases"]),
        parsers={
            parser: {
                option: tuple(
                    Run(nargs=str(n), dest=str(d), first=int(a), last=int(b)) for n, d, a, b in runs
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


def _read_as(
    options: Mapping[str, tuple[Run, ...]], name: str, count: int
) -> tuple[dict[str, Run], dict[str, None]]:
    """What the releases that lack `name` itself read it as: the option a unique prefix
    abbreviates (with its run), and the options of an ambiguous prefix."""
    begun = [(o, runs) for o, runs in options.items() if o.startswith(name) and o != name]
    exact = options.get(name, ())
    read_as: dict[str, Run] = {}
    ambiguous: dict[str, None] = {}
    for release in range(count):
        if any(r.covers(release) for r in exact):
            continue
        here = [(o, r) for o, runs in begun for r in runs if r.covers(release)]
        if len(here) == 1:
            read_as.setdefault(*here[0])
        elif here:
            ambiguous.update(dict.fromkeys(o for o, _ in here))
    return read_as, ambiguous


def flag_problem(parser: str, name: str, count: int, *, server: bool) -> str | None:
    """Why no supported SGLang release reads `name` with `count` values as the catalog
    means it (None: at least one does). `server`: the launcher's own flags, and any
    abbreviation SGLang reads as one of them, are refused too."""
    known = index(SGLANG)
    options = known.parsers.get(parser, {})
    exact = options.get(name, ())
    read_as, ambiguous = _read_as(options, name, len(known.releases))
    if server and any(r.dest in LAUNCHER_DESTS for r in exact):
        return f"{name} is set by the launcher on every server: remove it from the catalog"
    owned = [o for o, r in read_as.items() if server and r.dest in LAUNCHER_DESTS]
    if owned:
        return (
            f"{name} abbreviates {owned[0]} for SGLang (a unique prefix of a flag is that flag), "
            f"and the launcher sets {owned[0]} on every server: remove it"
        )
    if not exact:
        if read_as:
            full = next(iter(read_as))
            return (
                f"{name} is an abbreviation SGLang reads as {full}: write {full} "
                "(one spelling per flag)"
            )
        if ambiguous:
            shown = ", ".join(sorted(ambiguous)[:4])
            return f"{name} is ambiguous for SGLang (it could be {shown}, ...): write a full flag"
        what = "server" if parser == SERVER else parser
        return f"{name} is not a {what} flag of {supported()}{did_you_mean(name, options)}"
    if not any(takes(r.nargs, count) for r in exact):
        given = {0: "no value", 1: "one value"}.get(count, f"{count} values")
        return f"{name} takes {wants(exact[-1].nargs)} in {supported()}, not {given}"
    return None


def dropped(parser: str, name: str) -> tuple[str, str] | None:
    """(the releases that have `name`, the first release after them) when some supported
    release has the flag but the newest has not; None otherwise."""
    known = index(SGLANG)
    runs = known.parsers.get(parser, {}).get(name, ())
    newest = len(known.releases) - 1
    if not runs or any(r.covers(newest) for r in runs):
        return None
    having = [v for i, v in enumerate(known.releases) if any(r.covers(i) for r in runs)]
    last = max(r.last for r in runs)
    return span(having), known.releases[last + 1]


def model_arg_problem(name: str) -> str | None:
    """Why no supported lm-eval's local-completions takes the model argument `name`."""
    if name in LAUNCHER_MODEL_ARGS:
        return f"model_args.{name} is set by the launcher for every case: remove it"
    known = index(LM_EVAL).keywords["local-completions"]
    if name in known:
        return None
    hint = did_you_mean(name, known)
    return f"model_args.{name} is not a local-completions argument of {supported(LM_EVAL)}{hint}"


# ------------------------------------------------------------ one release's own tables


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


def release(tool: str, version: str) -> Release:
    """One release's own table (`<tool>-<version>.json`), as its parsers declare them."""
    data = json.loads(_read(f"{tool}-{version}.json"))
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
    )
