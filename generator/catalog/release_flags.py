"""One release of the supported set: how it spells a catalog flag, whether it refuses it or
has retired it, and the runs of releases that read a flag under another name."""

from __future__ import annotations

import functools

from generator.catalog.upstream import SGLANG, OptionRun, Retired, index, span, takes, wants

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


def release_at(version: str) -> int | None:
    """The index of a supported SGLang release (`0.5.9`, `v0.5.9`), else None."""
    releases = index(SGLANG).releases
    text = version[1:] if version[:1] in ("v", "V") and version[1:2].isdigit() else version
    return releases.index(text) if text in releases else None


def _runs_at(parser: str, name: str, release: int) -> list[OptionRun]:
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
