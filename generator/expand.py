"""Configs and cases to resolved servers, benchmark cells and accuracy entries."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from generator.errors import CatalogError, SelectionError
from generator.estimate import point_minutes
from generator.flags import argv, canonical, env_dict, merge_env, override_env, override_flags
from generator.memo import once_for
from generator.model import (
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


@dataclass(frozen=True, kw_only=True)
class Server:
    """Exactly what `sglang.launch_server` is started with (besides model, host and port)."""

    model_path: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    runner: str
    mode: str

    def fingerprint(self) -> tuple[object, ...]:
        return (self.model_path, self.args, self.env, self.runner, self.mode)


@dataclass(frozen=True, kw_only=True)
class Cell:
    id: str
    config: Config
    pair: Pair
    concurrency: int
    random_range_ratio: float
    num_prompts: int
    num_warmups: int
    server: Server
    minutes: float


def ratio_text(ratio: float) -> str:
    return f"{ratio:g}"


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


def check_mode(catalog: Catalog, suite_name: str, mode: str | None, image: str | None) -> str:
    """The server mode to use for a suite; refuses a mode the suite or image cannot run."""
    suite = catalog.suite(suite_name)
    chosen = mode or suite.server_modes[0]
    if chosen not in suite.server_modes:
        raise SelectionError(
            f"suite {suite.name} has no server mode '{chosen}' "
            f"(it has: {', '.join(suite.server_modes)})"
        )
    pattern = catalog.mode(chosen).image_pattern
    if pattern and image is not None and not fnmatch.fnmatchcase(image, pattern):
        raise SelectionError(f"server mode '{chosen}' runs only on {pattern} images, not '{image}'")
    return chosen


def image_for(catalog: Catalog, mode: str | None, image: str | None) -> str:
    """The image a job runs in: the override, else the default; empty when the mode
    needs an image of its own (the dispatch must then name one)."""
    if image is not None:
        return image
    if mode is not None and catalog.mode(mode).image_pattern:
        return ""
    return catalog.default_image


def config_server(catalog: Catalog, config: Config, pair: Pair, mode: str) -> Server:
    return once_for(
        catalog, config, ("server", pair, mode), lambda: _config_server(catalog, config, pair, mode)
    )


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


def base_server(catalog: Catalog, config: Config) -> Server:
    """A config's server in its suite's default mode, without per-pair extras."""
    return _config_server(catalog, config, None, catalog.suite(config.suite).server_modes[0])


def check_modes(
    catalog: Catalog, configs: tuple[Config, ...], mode: str | None, image: str | None
) -> None:
    """Refuse a server mode or image that one of the configs' suites cannot run."""
    if mode is None and image is None:
        return
    for suite in sorted({c.suite for c in configs}):
        check_mode(catalog, suite, mode, image)


def config_cells(catalog: Catalog, config: Config, mode: str | None = None) -> list[Cell]:
    """The config's cells in sweep order: its pairs in suite order, each from low to high
    concurrency."""
    chosen = mode or catalog.suite(config.suite).server_modes[0]
    cells = once_for(
        catalog, config, ("cells", chosen), lambda: tuple(_config_cells(catalog, config, chosen))
    )
    return list(cells)


def _config_cells(catalog: Catalog, config: Config, chosen: str) -> list[Cell]:
    suite = catalog.suite(config.suite)
    sampling = config.sampling
    out = []
    for pair, concurrencies in config.grid:
        server = config_server(catalog, config, pair, chosen)
        for conc in sorted(concurrencies):
            ratio = suite.random_range_ratio
            prompts = conc * sampling.prompts_per_concurrency
            warmups = conc * sampling.warmups_per_concurrency
            minutes = point_minutes(
                catalog.estimates.point,
                isl=pair.isl,
                osl=pair.osl,
                concurrency=conc,
                requests=prompts + warmups,
                gpus=config.parallel.gpus,
            )
            out.append(
                Cell(
                    id=f"{config.prefix}-{pair.isl}-{pair.osl}-{conc}-{ratio_text(ratio)}",
                    config=config,
                    pair=pair,
                    concurrency=conc,
                    random_range_ratio=ratio,
                    num_prompts=prompts,
                    num_warmups=warmups,
                    server=server,
                    minutes=minutes,
                )
            )
    return out


def case_server(catalog: Catalog, case: Case) -> Server:
    return once_for(catalog, case, "server", lambda: _case_server(catalog, case))


def _case_server(catalog: Catalog, case: Case) -> Server:
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


def cells_of(catalog: Catalog, configs: tuple[Config, ...], mode: str | None = None) -> list[Cell]:
    return [cell for c in configs for cell in config_cells(catalog, c, mode)]
