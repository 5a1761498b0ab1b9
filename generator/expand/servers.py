"""Configs and cases to the servers they start: a server mode's declared overlay in front
of a config's arguments, per-pair extras, and the environment."""

from __future__ import annotations

from generator.catalog.flags import (
    argv,
    canonical,
    env_dict,
    merge_env,
    override_env,
    override_flags,
)
from generator.catalog.model import (
    SPEC_NONE,
    Case,
    Catalog,
    Config,
    EnvVar,
    Flag,
    Pair,
    Parallel,
    ServerMode,
)
from generator.errors import CatalogError
from generator.expand.model import Server


def _substitute(flag: Flag, values: dict[str, str]) -> Flag:
    out = []
    for value in flag.values:
        for name, replacement in values.items():
            value = value.replace("{" + name + "}", replacement)
        out.append(value)
    return Flag(name=flag.name, values=tuple(out), loc=flag.loc)


def apply_mode(mode: ServerMode, flags: tuple[Flag, ...], parallel: Parallel) -> tuple[Flag, ...]:
    """The mode's flags in front of the config's, with the declared precedence."""
    by_name = {canonical(f.name): f for f in flags}
    values = {"tp": str(parallel.tp), "dp": str(parallel.dp), "ep": str(parallel.ep)}
    for var in mode.variables:
        found = by_name.get(canonical(var.flag))
        values[var.name] = found.values[0] if found and found.values else var.default
    front = [_substitute(f, values) for f in mode.args]
    out: dict[str, Flag] = {canonical(f.name): f for f in front}
    for flag in flags:
        key = canonical(flag.name)
        mine = out.get(key)
        if mine is None:
            out[key] = flag
        elif mine.values != flag.values:
            if mode.precedence == "config":
                out[key] = flag
            elif mode.precedence != "mode":
                msg = (
                    f"server mode '{mode.name}' sets {mine.name} to '{' '.join(mine.values)}' "
                    f"but the config sets '{' '.join(flag.values)}'; declare a precedence"
                )
                raise CatalogError(msg, flag.loc)
    return tuple(out.values())


def resolve(
    catalog: Catalog,
    *,
    model_path: str,
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
    variables: list[EnvVar] = list(env) if mode.config_env else []
    variables = list(override_env(variables, extra_env))
    mode_env = list(mode.env) + (list(mode.spec_env) if spec != SPEC_NONE else [])
    if mode.config_env:
        resolved = merge_env([*variables, *mode_env])
    else:
        resolved = override_env(merge_env(mode_env), variables)
    return Server(
        model_path=model_path,
        args=tuple(argv(all_flags)),
        env=tuple(env_dict(resolved).items()),
        runner=runner,
        mode=mode.name,
    )


def _named(name: str, error: CatalogError) -> CatalogError:
    """The same refusal, saying whose server it is."""
    return CatalogError(f"{name}: {error.message}", error.loc)


def config_server(catalog: Catalog, config: Config, pair: Pair | None, mode: str) -> Server:
    """A config's server for one pair (None: without per-pair extras) in one mode."""
    try:
        return _config_server(catalog, config, pair, mode)
    except CatalogError as e:
        raise _named(f"config '{config.prefix}'", e) from e


def _config_server(catalog: Catalog, config: Config, pair: Pair | None, mode: str) -> Server:
    extras = config.extras_for(pair) if pair is not None else None
    return resolve(
        catalog,
        model_path=config.model.path,
        parallel=config.parallel,
        spec=config.spec,
        flags=config.args,
        env=config.env,
        runner=config.runner,
        mode_name=mode,
        extra_flags=extras.args if extras else (),
        extra_env=extras.env if extras else (),
    )


def case_server(catalog: Catalog, case: Case) -> Server:
    """An accuracy case's server, in the catalog's first server mode."""
    try:
        return resolve(
            catalog,
            model_path=case.model.path,
            parallel=case.parallel,
            spec=case.spec,
            flags=case.args,
            env=case.env,
            runner=case.runner,
            mode_name=catalog.server_modes[0].name,
        )
    except CatalogError as e:
        raise _named(f"case '{case.id}'", e) from e
