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
    from collections.abc import Iterable, Mapping

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
    refused: Mapping[str, frozenset[str]]  # parser -> the retired flags it stops on


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
        refused={
            k: frozenset(o for o, note in v.get("deprecated", {}).items() if note["refused"])
            for k, v in data["parsers"].items()
            if "actions" in v
        },
    )


# ------------------------------------------------------- one release of the supported set


def release_at(version: str) -> int | None:
    """The index of a supported SGLang release (`0.5.9`, `v0.5.9`), else None."""
    releases = index(SGLANG).releases
    text = version[1:] if version[:1] in ("v", "V") and version[1:2].isdigit() else version
    return releases.index(text) if text in releases else None


def _runs_at(parser: str, name: str, release: int) -> list[Run]:
    return [r for r in index(SGLANG).parsers.get(parser, {}).get(name, ()) if r.covers(release)]


def _retired_at(parser: str, name: str, release: int) -> Retired | None:
    notes = index(SGLANG).deprecated.get(parser, {}).get(name, ())
    return next((n for n in notes if n.covers(release)), None)


def _renamed_to(parser: str, name: str) -> set[str]:
    """The option strings SGLang names as `name`'s replacement (`use`) in any release, and
    those whose replacement `name` is: one flag under its old and new name."""
    known = index(SGLANG).deprecated.get(parser, {})
    out = {n.use for n in known.get(name, ()) if n.use and _bare(n.use) and not n.refused}
    out |= {
        old for old, notes in known.items() if any(n.use == name and not n.refused for n in notes)
    }
    return out - {name}


def _bare(use: str) -> bool:
    """Whether a replacement is a flag alone (`--x`), not a flag with a value (`--x=y`,
    `--x <n>`), which says how to write it, not what it is called."""
    return use.startswith("--") and all(c.isalnum() or c == "-" for c in use[2:])


# The two questions every server's every flag asks, once for each release: their answers
# depend on the (cached) index alone, and a catalog of thousands of configs asks the same
# few hundred of them over a million times.
@functools.cache
def spelling(parser: str, name: str, release: int) -> str | None:
    """The option string `release` reads the catalog's `name` as: `name` itself where the
    release has it, else the flag SGLang names as its old or new name (the replacement a
    deprecated alias names: `--cuda-graph-bs` is `--cuda-graph-bs-decode` in 0.5.20 and
    later, which dropped the alias 0.5.14 to 0.5.19 kept) when the release has that one
    with the same value count; else None (the release has no such flag)."""
    own = _runs_at(parser, name, release)
    if own:
        return name
    counts = {r.nargs for r in index(SGLANG).parsers.get(parser, {}).get(name, ())}
    for other in sorted(_renamed_to(parser, name)):
        runs = _runs_at(parser, other, release)
        if runs and (not counts or runs[0].nargs in counts):
            return other
    return None


@functools.cache
def release_problem(parser: str, name: str, count: int, release: int) -> str | None:
    """Why SGLang release `release` refuses `name` with `count` values (None: it starts
    with it, under the name `spelling` gives): it has no such flag, the flag takes another
    number of values there, or the release stops the launch on it (a retired flag)."""
    version = index(SGLANG).releases[release]
    spelled = spelling(parser, name, release)
    if spelled is None:
        having = [
            v
            for i, v in enumerate(index(SGLANG).releases)
            if _runs_at(parser, name, i) or spelling(parser, name, i) is not None
        ]
        where = f" (it is a flag of {span(having)})" if having else ""
        return f"SGLang {version} has no {name}{where}"
    runs = _runs_at(parser, spelled, release)
    if not any(takes(r.nargs, count) for r in runs):
        given = {0: "no value", 1: "one value"}.get(count, f"{count} values")
        return f"{name} takes {wants(runs[0].nargs)} in SGLang {version}, not {given}"
    note = _retired_at(parser, spelled, release)
    if note is not None and note.refused:
        use = f": use {note.use}" if note.use else ""
        return f"SGLang {version} refuses {spelled} (retired){use}"
    return None


def deprecation(parser: str, name: str, release: int) -> Retired | None:
    """What `release` says of `name` (as it spells it) when it has retired it but still
    takes it; None when it has not."""
    spelled = spelling(parser, name, release)
    note = None if spelled is None else _retired_at(parser, spelled, release)
    return None if note is None or note.refused else note


def renamings(parser: str, name: str) -> list[tuple[str, str, str]]:
    """(spelling, first release, last release) for each run of supported releases that
    read `name` under another name, oldest first; a last release that is the newest
    supported one stands for it and every later release."""
    releases = index(SGLANG).releases
    out: list[list[str]] = []
    previous: str | None = None
    for i, version in enumerate(releases):
        spelled = spelling(parser, name, i)
        if spelled is not None and spelled != name:
            if out and previous == spelled and out[-1][2] == releases[i - 1]:
                out[-1][2] = version
            else:
                out.append([spelled, version, version])
        previous = spelled
    return [(a, b, c) for a, b, c in out]


def argv_flags(args: Iterable[str]) -> list[tuple[str, int]]:
    """Each flag of an argv with the number of values after it, in order."""
    out: list[tuple[str, int]] = []
    for token in args:
        if token.startswith("--"):
            out.append((token, 0))
        elif out:
            out[-1] = (out[-1][0], out[-1][1] + 1)
    return out
