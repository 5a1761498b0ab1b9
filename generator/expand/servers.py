"""Configs and cases to the servers they start: a server mode's declared overlay in front
of a config's arguments, per-pair extras, and the environment."""

from __future__ import annotations

from generator.catalog.catalog_types import SPEC_NONE, Case, Catalog, Config, Pair
from generator.catalog.flags import argv, canonical, env_dict, override_env, override_flags
from generator.catalog.parallel_layout import TP
from generator.catalog.server_types import EnvVar, Flag, Parallel, ServerMode
from generator.errors import CatalogError, Loc
from generator.expand.expanded import Server


def _substitute(flag: Flag, values: dict[str, str]) -> Flag:
    out = []
    for value in flag.values:
        text = value
        for name, replacement in values.items():
            text = text.replace("{" + name + "}", replacement)
        out.append(text)
    return Flag(name=flag.name, values=tuple(out), loc=flag.loc)


def _conflict(mode: ServerMode, what: str, mine: str, theirs: str, loc: Loc) -> CatalogError:
    msg = (
        f"server mode '{mode.name}' sets {what} to '{mine}' but the config sets '{theirs}'; "
        "declare a precedence"
    )
    return CatalogError(msg, loc)


def mode_flags(mode: ServerMode, flags: tuple[Flag, ...], parallel: Parallel) -> tuple[Flag, ...]:
    """The mode's own flags for a config, its variables filled in."""
    by_name = {canonical(f.name): f for f in flags}
    values = {"tp": str(parallel.tp), "dp": str(parallel.dp), "ep": str(parallel.ep)}
    for var in mode.variables:
        found = by_name.get(canonical(var.flag))
        values[var.name] = found.values[0] if found and found.values else var.default
    return tuple(_substitute(f, values) for f in mode.args)


def disagreements(
    mode: ServerMode,
    flags: tuple[Flag, ...],
    env: tuple[EnvVar, ...],
    parallel: Parallel,
    spec: str,
) -> list[tuple[str, str, str, Loc]]:
    """Where the mode and a config set one flag or env name to different values:
    (name, the mode's value, the config's value, where the config sets it)."""
    out = []
    mine = {canonical(f.name): f for f in mode_flags(mode, flags, parallel)}
    for flag in flags:
        other = mine.get(canonical(flag.name))
        if other is not None and other.values != flag.values:
            out.append((flag.name, " ".join(other.values), " ".join(flag.values), flag.loc))
    mode_env = {v.name: v for v in (*mode.env, *(mode.spec_env if spec != SPEC_NONE else ()))}
    for var in env:
        theirs = mode_env.get(var.name)
        if theirs is not None and theirs.value != var.value:
            out.append((var.name, theirs.value, var.value, var.loc))
    return out


def apply_mode(mode: ServerMode, flags: tuple[Flag, ...], parallel: Parallel) -> tuple[Flag, ...]:
    """The config's tensor-parallel size first (it leads every command line), the mode's
    flags, then the config's, each flag once: where the mode and the config both set one,
    the declared precedence says whose value it takes."""
    lead = [f for f in flags if canonical(f.name) == TP]
    out: dict[str, Flag] = {
        canonical(f.name): f for f in (*lead, *mode_flags(mode, flags, parallel))
    }
    for flag in flags:
        key = canonical(flag.name)
        mine = out.get(key)
        if mine is None or mine.values == flag.values:
            out.setdefault(key, flag)
        elif mode.precedence == "config":
            out[key] = flag
        elif mode.precedence != "mode":
            raise _conflict(mode, mine.name, " ".join(mine.values), " ".join(flag.values), flag.loc)
    return tuple(out.values())


def apply_mode_env(mode: ServerMode, env: tuple[EnvVar, ...], spec: str) -> tuple[EnvVar, ...]:
    """The mode's env (and its speculative-decoding env for a config with a `spec`), then the
    config's, each name once, with the declared precedence."""
    mode_env = (*mode.env, *(mode.spec_env if spec != SPEC_NONE else ()))
    out: dict[str, EnvVar] = {v.name: v for v in mode_env}
    for var in env:
        mine = out.get(var.name)
        if mine is None or mine.value == var.value:
            out.setdefault(var.name, var)
        elif mode.precedence == "config":
            out[var.name] = var
        elif mode.precedence != "mode":
            raise _conflict(mode, var.name, mine.value, var.value, var.loc)
    return tuple(out.values())


def resolve(
    catalog: Catalog,
    *,
    model_path: str,
    model_revision: str | None = None,
    parallel: Parallel,
    spec: str,
    flags: tuple[Flag, ...],
    env: tuple[EnvVar, ...],
    runner: str,
    mode_name: str,
    extra_flags: tuple[Flag, ...] = (),
    extra_env: tuple[EnvVar, ...] = (),
) -> Server:
    mode = catalog.mode(mode_name)
    all_flags = apply_mode(mode, override_flags(flags, extra_flags), parallel)
    all_env = apply_mode_env(mode, override_env(env, extra_env), spec)
    return Server(
        model_path=model_path,
        model_revision=model_revision,
        args=tuple(argv(all_flags)),
        env=tuple(env_dict(all_env).items()),
        runner=runner,
        mode=mode.name,
    )


def _named(name: str, error: CatalogError) -> CatalogError:
    """The same refusal, saying whose server it is."""
    return CatalogError(f"{name}: {error.message}", error.loc)


def config_server(catalog: Catalog, config: Config, pair: Pair | None, mode: str) -> Server:
    """A config's server for one pair (None: without per-pair extras) in one mode."""
    extras = config.extras_for(pair) if pair is not None else None
    try:
        return resolve(
            catalog,
            model_path=config.model.path,
            model_revision=config.model.revision,
            parallel=config.parallel,
            spec=config.spec,
            flags=config.args,
            env=config.env,
            runner=config.runner,
            mode_name=mode,
            extra_flags=extras.args if extras else (),
            extra_env=extras.env if extras else (),
        )
    except CatalogError as e:
        where = f"config '{config.prefix}'"
        raise _named(where, e) from e


def case_server(catalog: Catalog, case: Case, level: str | None = None) -> Server:
    """An accuracy case's server at `level` (None: its first), in the catalog's first
    server mode."""
    try:
        return resolve(
            catalog,
            model_path=case.model.path,
            model_revision=case.model.revision,
            parallel=case.parallel,
            spec=case.spec,
            flags=case.args,
            env=case.env,
            runner=case.runner_for(level or case.levels[0]),
            mode_name=catalog.server_modes[0].name,
        )
    except CatalogError as e:
        where = f"case '{case.id}'"
        raise _named(where, e) from e
