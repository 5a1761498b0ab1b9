"""The flags SGLang and lm-eval accept, per supported release, and the catalog's checks on them.

The tables under `flagtables/` are written by scripts/flag_tables.py from the released
wheels' source (docs/lint.md, "SGLang's own flags"). SGLang builds its parsers with
argparse's default `allow_abbrev=True`: a unique prefix of a flag is that flag (`--hos` is
`--host`) and a prefix of several is refused as ambiguous. The catalog writes every flag in
full, so its flag identity (one value per flag, the lint rules) is what the server reads.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from generator.errors import did_you_mean

SGLANG = "sglang"
LM_EVAL = "lm-eval"
SERVER = "server"
# What the launcher sets on every server (generator/launch/commands.py server_argv).
LAUNCHER_DESTS = ("model_path", "host", "port")
# The model arguments the launcher passes to lm-eval's local-completions itself.
LAUNCHER_MODEL_ARGS = ("base_url", "model")
_COUNTS = {"0": "no value (write `true`)", "1": "one value", "?": "at most one value"}


@dataclass(frozen=True, kw_only=True)
class Action:
    """One argparse action: its option strings, where it stores, how many values it takes."""

    nargs: str  # "0", "1", "?", "*", "+" or a number
    dest: str
    options: tuple[str, ...]

    def takes(self, count: int) -> bool:
        if self.nargs == "?":
            return count <= 1
        if self.nargs == "*":
            return True
        if self.nargs == "+":
            return count >= 1
        return count == int(self.nargs)

    def wants(self) -> str:
        if self.nargs in _COUNTS:
            return _COUNTS[self.nargs]
        if self.nargs == "+":
            return "one value or more"
        return f"{self.nargs} values"


@dataclass(frozen=True, kw_only=True)
class Parser:
    """One release's argparse parser, by option string."""

    allow_abbrev: bool
    by_option: Mapping[str, Action]

    def resolve(self, name: str) -> list[Action]:
        """What argparse reads `name` as: its action, the one a unique prefix abbreviates,
        or several (an ambiguous prefix, refused); none for an unknown name."""
        if name in self.by_option:
            return [self.by_option[name]]
        if not self.allow_abbrev:
            return []
        found = [a for option, a in self.by_option.items() if option.startswith(name)]
        return found


@dataclass(frozen=True, kw_only=True)
class Release:
    name: str
    version: str
    parsers: Mapping[str, Parser]
    keywords: Mapping[str, tuple[str, ...]]


def _parser(raw: Mapping[str, object]) -> Parser:
    by_option: dict[str, Action] = {}
    actions = raw["actions"]
    assert isinstance(actions, list)
    for row in actions:
        nargs, dest, *options = (str(x) for x in row)
        derived = next((o for o in options if o.startswith("--")), options[0])
        action = Action(
            nargs=nargs,
            dest=dest or derived.lstrip("-").replace("-", "_"),
            options=tuple(options),
        )
        for option in options:
            by_option[option] = action
    return Parser(allow_abbrev=bool(raw["allow_abbrev"]), by_option=by_option)


def _read(name: str) -> str:
    return resources.files("generator.catalog").joinpath(f"flagtables/{name}").read_text()


@functools.cache
def releases(tool: str) -> tuple[Release, ...]:
    """The supported releases of `tool`, oldest first."""
    versions = json.loads(_read("index.json"))[tool]
    out = []
    for version in versions:
        data = json.loads(_read(f"{tool}-{version}.json"))
        parsers = {k: v for k, v in data["parsers"].items() if "actions" in v}
        out.append(
            Release(
                name=tool,
                version=str(version),
                parsers={k: _parser(v) for k, v in parsers.items()},
                keywords={
                    k: tuple(v["keywords"]) for k, v in data["parsers"].items() if "keywords" in v
                },
            )
        )
    return tuple(out)


def span(versions: list[str]) -> str:
    """`0.5.9` or `0.5.9 to 0.5.19`."""
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"


def supported(tool: str = SGLANG) -> str:
    listed = releases(tool)
    return f"{'SGLang' if tool == SGLANG else tool} {span([r.version for r in listed])}"


@functools.cache
def _options(parser: str) -> tuple[str, ...]:
    """Every option string any supported SGLang release's `parser` has."""
    seen: dict[str, None] = {}
    for release in releases(SGLANG):
        if parser in release.parsers:
            seen.update(dict.fromkeys(release.parsers[parser].by_option))
    return tuple(seen)


def parsers_known() -> tuple[str, ...]:
    """The parser names the tables hold: `server` and the client and evaluator modules."""
    seen: dict[str, None] = {}
    for release in releases(SGLANG):
        seen.update(dict.fromkeys(release.parsers))
    return tuple(seen)


def flag_problem(parser: str, name: str, count: int, *, server: bool) -> str | None:
    """Why no supported SGLang release reads `name` with `count` values as the catalog
    means it (None: at least one does). `server`: the launcher's own flags, and any
    abbreviation SGLang reads as one of them, are refused too."""
    exact: list[Action] = []
    read_as: dict[str, Action] = {}  # what a release reads `name` as, by its first option
    ambiguous: dict[str, None] = {}
    for release in releases(SGLANG):
        table = release.parsers.get(parser)
        found = table.resolve(name) if table is not None else []
        if len(found) == 1:
            read_as[found[0].options[0]] = found[0]
            if name in found[0].options:
                exact.append(found[0])
        else:
            ambiguous.update(dict.fromkeys(o for a in found for o in a.options))
    owned = [a for a in read_as.values() if server and a.dest in LAUNCHER_DESTS]
    if owned:
        if exact:
            return f"{name} is set by the launcher on every server: remove it from the catalog"
        full = next(o for o in owned[0].options if o.startswith(name))
        return (
            f"{name} abbreviates {full} for SGLang (a unique prefix of a flag is that flag), "
            f"and the launcher sets {full} on every server: remove it"
        )
    if not exact:
        if read_as:
            full = next(o for o in next(iter(read_as.values())).options if o.startswith(name))
            return (
                f"{name} is an abbreviation SGLang reads as {full}: write {full} "
                "(one spelling per flag)"
            )
        if ambiguous:
            shown = ", ".join(sorted(o for o in ambiguous if o.startswith(name))[:4])
            return f"{name} is ambiguous for SGLang (it could be {shown}, ...): write a full flag"
        what = "server" if parser == SERVER else parser
        hint = did_you_mean(name, _options(parser))
        return f"{name} is not a {what} flag of {supported()}{hint}"
    if not any(a.takes(count) for a in exact):
        given = {0: "no value", 1: "one value"}.get(count, f"{count} values")
        return f"{name} takes {exact[-1].wants()} in {supported()}, not {given}"
    return None


def dropped(parser: str, name: str) -> tuple[str, str] | None:
    """(the releases that know `name`, the first release after them) when some supported
    release has the flag but the newest has not; None otherwise."""
    listed = releases(SGLANG)
    knows = [name in r.parsers.get(parser, _EMPTY).by_option for r in listed]
    if not any(knows) or knows[-1]:
        return None
    last = max(i for i, k in enumerate(knows) if k)
    return span([r.version for r, k in zip(listed, knows, strict=True) if k]), listed[
        last + 1
    ].version


def model_arg_problem(name: str) -> str | None:
    """Why no supported lm-eval's local-completions takes the model argument `name`."""
    if name in LAUNCHER_MODEL_ARGS:
        return f"model_args.{name} is set by the launcher for every case: remove it"
    known: dict[str, None] = {}
    for release in releases(LM_EVAL):
        known.update(dict.fromkeys(release.keywords.get("local-completions", ())))
    if name in known:
        return None
    hint = did_you_mean(name, known)
    return f"model_args.{name} is not a local-completions argument of {supported(LM_EVAL)}{hint}"


_EMPTY = Parser(allow_abbrev=True, by_option={})
