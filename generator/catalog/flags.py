"""Flag identity and the rule that a flag (or env name) is set once per server."""

from __future__ import annotations

from generator.errors import CatalogError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from generator.catalog.server_types import EnvVar, Flag

# Alternative spellings SGLang's argparse accepts for the same destination
# (python/sglang/srt/server_args.py: add_argument("--tensor-parallel-size", "--tp-size", ...)).
ALIASES = {
    "--tp-size": "--tensor-parallel-size",
    "--dp-size": "--data-parallel-size",
    "--ep-size": "--expert-parallel-size",
    "--ep": "--expert-parallel-size",
    "--pp-size": "--pipeline-parallel-size",
}


def canonical(name: str) -> str:
    return ALIASES.get(name, name)


def _shown(values: tuple[str, ...]) -> str:
    return "(no value)" if not values else "'" + " ".join(values) + "'"


def merge_flags(flags: Iterable[Flag]) -> tuple[Flag, ...]:
    """Flags in order; a repeated flag with the same values is kept once, otherwise an error."""
    out: dict[str, Flag] = {}
    for flag in flags:
        key = canonical(flag.name)
        first = out.get(key)
        if first is None:
            out[key] = flag
        elif first.values != flag.values:
            msg = (
                f"{flag.name} is set to {_shown(first.values)} (line {first.loc.line}) and to "
                f"{_shown(flag.values)} (line {flag.loc.line}); a flag is set once "
                "(override: replaces it for every pair, per_pair: for one)"
            )
            raise CatalogError(msg, flag.loc)
    return tuple(out.values())


def override_flags(base: Iterable[Flag], overrides: Iterable[Flag]) -> tuple[Flag, ...]:
    """Declared overrides replace a flag's values in place, or are appended."""
    out = {canonical(f.name): f for f in base}
    for flag in overrides:
        out[canonical(flag.name)] = flag
    return tuple(out.values())


def merge_env(variables: Iterable[EnvVar]) -> tuple[EnvVar, ...]:
    out: dict[str, EnvVar] = {}
    for var in variables:
        first = out.get(var.name)
        if first is None:
            out[var.name] = var
        elif first.value != var.value:
            msg = (
                f"{var.name} is set to '{first.value}' (line {first.loc.line}) and to "
                f"'{var.value}' (line {var.loc.line}); an env name is set once "
                "(override: replaces it for every pair, per_pair: for one)"
            )
            raise CatalogError(msg, var.loc)
    return tuple(out.values())


def override_env(base: Iterable[EnvVar], overrides: Iterable[EnvVar]) -> tuple[EnvVar, ...]:
    out = {v.name: v for v in base}
    for var in overrides:
        out[var.name] = var
    return tuple(out.values())


def argv(flags: Iterable[Flag]) -> list[str]:
    return [token for flag in flags for token in flag.tokens()]


def env_dict(variables: Iterable[EnvVar]) -> dict[str, str]:
    return {v.name: v.value for v in variables}
