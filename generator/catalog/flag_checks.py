"""The catalog's checks of a flag or lm-eval model argument against every supported release:
the flags SGLang reads, abbreviations included, and those it dropped."""

from __future__ import annotations

from generator.catalog.upstream import (
    LAUNCHER_DESTS,
    LAUNCHER_MODEL_ARGS,
    LM_EVAL,
    SERVER,
    SGLANG,
    index,
    span,
    supported,
    takes,
    wants,
)
from generator.errors import did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.upstream import OptionRun


def _read_as(
    options: Mapping[str, tuple[OptionRun, ...]], name: str, count: int
) -> tuple[dict[str, OptionRun], dict[str, None]]:
    """What the releases that lack `name` itself read it as: the option a unique prefix
    abbreviates (with its run), and the options of an ambiguous prefix."""
    begun = [(o, runs) for o, runs in options.items() if o.startswith(name) and o != name]
    exact = options.get(name, ())
    read_as: dict[str, OptionRun] = {}
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
