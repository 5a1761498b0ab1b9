"""The benchmark catalog's `configs`: each config's server, grid and per-pair extras."""

from __future__ import annotations

from typing import Any, TypeVar

from generator.catalog.catalog_types import PACKINGS, PER_SERVER, Config, PairExtras, one_of
from generator.catalog.flags import canonical, merge_env, merge_flags, override_env, override_flags
from generator.catalog.sections import build_parallel, number, parse_pair
from generator.errors import CatalogError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from generator.catalog.benchmark_catalog import BenchmarkBuilder
    from generator.catalog.catalog_types import Pair, Suite
    from generator.catalog.reader import Reader
    from generator.catalog.server_types import EnvVar, Flag

# A config's cells in one server mode: its own preset is one matrix of at most 256 jobs
# (GitHub's limit) of at most 256 points each (the launcher's), so more could never run.
MAX_CONFIG_CELLS = 256 * 256
# Every config's cells in every server mode of its suite: what expand builds (each twice,
# packed and one job per cell). The largest catalog measured (docs/performance.md) has
# 100,000; the bound is checked on the grid sizes, before any cell exists.
MAX_CATALOG_CELLS = 250_000

T = TypeVar("T")
R = TypeVar("R")


def build_config(b: BenchmarkBuilder, i: int, raw: Mapping[str, Any]) -> Config:
    r = b.r
    path: list[str | int] = ["configs", i]
    suite = b.suites[r.known(str(raw["suite"]), b.suites, "suite", [*path, "suite"])]
    model = b.models[r.known(str(raw["model"]), b.models, "model", [*path, "model"])]
    runner = r.known(str(raw.get("runner", suite.runner)), b.runners, "runner", [*path, "runner"])
    sampling = r.known(
        str(raw.get("sampling", suite.sampling)), b.samplings, "sampling", [*path, "sampling"]
    )
    used: list[str] = []
    parallel = build_parallel(raw["parallel"])
    server_args = r.server_args(raw["args"], path, b.arg_fragments, used, parallel)
    flags = _at(r, merge_flags, server_args, [*path, "args"])
    env_items = r.items(raw.get("env") or [], [*path, "env"], b.env_fragments, "env", used)
    env = _at(r, merge_env, env_items, [*path, "env"])
    flags, env = _override(b, raw.get("override") or {}, flags, env, [*path, "override"], used)
    grid = _grid(b, suite, raw.get("grid"), [*path, "grid"])
    cells = sum(len(concurrencies) for _, concurrencies in grid)
    if cells > MAX_CONFIG_CELLS:
        where = [*path, "grid"] if "grid" in raw else path
        msg = (
            f"config '{raw['prefix']}' has {cells:,} cells ({len(grid):,} pairs); a config "
            f"runs at most {MAX_CONFIG_CELLS:,} (its preset: 256 jobs of 256 points)"
        )
        raise r.fail(msg, where)
    per_pair = []
    for pair_text, extras in (raw.get("per_pair") or {}).items():
        pair = parse_pair(str(pair_text))
        pp: list[str | int] = [*path, "per_pair", pair_text]
        if pair not in [p for p, _ in grid]:
            msg = f"per_pair {pair} is not a pair this config runs"
            raise r.fail(msg, pp)
        per_pair.append((pair, _extras(b, extras, pp, used)))
    return Config(
        prefix=str(raw["prefix"]),
        display=str(raw["display"]),
        dashboard_model=raw.get("dashboard_model"),
        preset=str(raw.get("preset", raw["prefix"])),
        suite=suite.name,
        model=model,
        parallel=parallel,
        spec=str(raw.get("spec", "none")),
        runner=runner,
        sampling=b.samplings[sampling],
        args=flags,
        env=env,
        grid=grid,
        per_pair=tuple(per_pair),
        fragments=tuple(used),
        waivers=tuple((str(k), str(v)) for k, v in (raw.get("waive") or {}).items()),
        startup_minutes=number(raw.get("startup_minutes")),
        packing=one_of(raw.get("packing", PER_SERVER), PACKINGS),
        loc=r.loc(path),
    )


def _extras(
    b: BenchmarkBuilder, raw: Mapping[str, Any], path: list[str | int], used: list[str]
) -> PairExtras:
    """The `args` and `env` of a config's `per_pair` entry or `override`, merged."""
    r = b.r
    return PairExtras(
        args=merge_flags(
            r.items(raw.get("args") or [], [*path, "args"], b.arg_fragments, "args", used)
        ),
        env=merge_env(r.items(raw.get("env") or [], [*path, "env"], b.env_fragments, "env", used)),
    )


def _override(
    b: BenchmarkBuilder,
    raw: Mapping[str, Any],
    flags: tuple[Flag, ...],
    env: tuple[EnvVar, ...],
    path: list[str | int],
    used: list[str],
) -> tuple[tuple[Flag, ...], tuple[EnvVar, ...]]:
    """A config's `override`: values that replace, in place and for every pair, ones
    its args and env set (per_pair replaces them for one pair)."""
    new = _extras(b, raw, path, used)
    for what, base, items in (("args", flags, new.args), ("env", env, new.env)):
        names = {canonical(x.name) for x in base}
        for item in items:
            if canonical(item.name) not in names:
                msg = (
                    f"override: {item.name} is not set by the config's {what}, so there "
                    f"is nothing to replace: write it in {what}"
                )
                raise CatalogError(msg, item.loc)
    return override_flags(flags, new.args), override_env(env, new.env)


def _at(r: Reader, merge: Callable[[list[T]], R], items: list[T], path: list[str | int]) -> R:
    """Merge fragments; a conflict is reported at the list that combined them."""
    try:
        return merge(items)
    except CatalogError as e:
        raise r.fail(e.message, path) from e


def _grid(
    b: BenchmarkBuilder, suite: Suite, raw: Mapping[str, Any] | None, path: list[str | int]
) -> tuple[tuple[Pair, tuple[int, ...]], ...]:
    if raw is None:
        if suite.concurrency is None:
            msg = f"a grid is required: suite {suite.name} has no default concurrency"
            raise b.r.fail(msg, path[:-1])
        return tuple((p, suite.concurrency) for p in suite.pairs)
    out = []
    for pair_text, conc in raw.items():
        pair = parse_pair(str(pair_text))
        if pair not in suite.pairs:
            shown = ", ".join(str(p) for p in suite.pairs)
            msg = f"pair {pair} is not one of suite {suite.name}'s pairs ({shown})"
            raise b.r.fail(msg, [*path, pair_text])
        out.append((pair, tuple(sorted(int(c) for c in conc))))
    order = {p: n for n, p in enumerate(suite.pairs)}
    return tuple(sorted(out, key=lambda item: order[item[0]]))


def build_configs(b: BenchmarkBuilder) -> tuple[Config, ...]:
    seen: dict[str, int] = {}
    out = []
    total = 0
    for i, raw in enumerate(b.r.doc["configs"]):
        config = build_config(b, i, raw)
        modes = len(b.suites[config.suite].server_modes)
        total += modes * sum(len(concurrencies) for _, concurrencies in config.grid)
        if total > MAX_CATALOG_CELLS:
            msg = (
                f"the configs up to '{config.prefix}' make {total:,} cells over their server "
                f"modes; a catalog makes at most {MAX_CATALOG_CELLS:,}: shrink grids or "
                "split the catalog"
            )
            raise b.r.fail(msg, ["configs", i])
        if config.prefix in seen:
            msg = f"duplicate prefix '{config.prefix}' (first at line {seen[config.prefix]})"
            raise b.r.fail(msg, ["configs", i, "prefix"])
        seen[config.prefix] = config.loc.line
        out.append(config)
    return tuple(out)
