"""Cron groups and presets: selectors over the built configs, each checked to select one."""

from __future__ import annotations

from generator.catalog import BenchmarkBuilder
from generator.cron import cron_problem
from generator.model import PER_SERVER, Config, Preset, Schedule, Selector
from generator.select import matches


def known_values(b: BenchmarkBuilder, configs: tuple[Config, ...]) -> dict[str, set[str]]:
    return {
        "suite": set(b.suites),
        "family": {c.model.family for c in configs},
        "precision": {c.model.precision for c in configs},
        "spec": {c.spec for c in configs},
        "model": {c.model.name for c in configs},
        "prefix": {c.prefix for c in configs},
    }


def build_schedules(b: BenchmarkBuilder, configs: tuple[Config, ...]) -> tuple[Schedule, ...]:
    known = known_values(b, configs)
    out: list[Schedule] = []
    for i, raw in enumerate(b.r.doc["schedules"]):
        path: list[str | int] = ["schedules", i]
        cron = str(raw["cron"])
        problem = cron_problem(cron)
        if problem:
            raise b.r.fail(problem, [*path, "cron"])
        for other in out:
            if other.cron == cron or other.name == raw["name"]:
                what = "cron" if other.cron == cron else "name"
                raise b.r.fail(
                    f"schedule {what} repeats the one at line {other.loc.line}", [*path, what]
                )
        mode = raw.get("server_mode")
        if mode is not None:
            b._check(str(mode), b.modes, "server mode", [*path, "server_mode"])
        select = b.r.selectors(raw["select"], [*path, "select"], known)
        if not select_configs_of(configs, select):
            raise b.r.fail(f"cron group '{raw['name']}' selects no config", [*path, "select"])
        out.append(
            Schedule(
                name=str(raw["name"]),
                title=str(raw["title"]),
                cron=cron,
                server_mode=mode,
                select=select,
                packing=str(raw.get("packing", PER_SERVER)),
                loc=b.r.loc(path),
            )
        )
    return tuple(out)


def build_presets(b: BenchmarkBuilder, configs: tuple[Config, ...]) -> tuple[Preset, ...]:
    """One preset per config (every suite), then the declared group presets."""
    known = known_values(b, configs)
    out: list[Preset] = []
    names: dict[str, dict[str, int]] = {name: {} for name in b.suites}
    for i, c in enumerate(configs):
        used = names[c.suite]
        if c.preset in used:
            msg = f"preset name '{c.preset}' is already used at line {used[c.preset]}"
            raise b.r.fail(msg, ["configs", i])
        used[c.preset] = c.loc.line
        own: tuple[Selector, ...] = (Selector(fields=(("prefix", (c.prefix,)),)),)
        out.append(
            Preset(
                suite=c.suite,
                name=c.preset,
                aliases=(),
                per_config=True,
                select=own,
                loc=c.loc,
            )
        )
    for suite_name, entries in b.r.doc["presets"].items():
        spath: list[str | int] = ["presets", suite_name]
        b._check(str(suite_name), b.suites, "suite", spath)
        used = names[str(suite_name)]
        mine = tuple(c for c in configs if c.suite == suite_name)
        for i, raw in enumerate(entries):
            path: list[str | int] = [*spath, i]
            aliases = tuple(str(a) for a in raw.get("aliases", []))
            for name in (str(raw["name"]), *aliases):
                if name in used:
                    msg = f"preset name '{name}' is already used at line {used[name]}"
                    raise b.r.fail(msg, [*path, "name"])
                used[name] = b.r.loc(path).line
            select = b.r.selectors(raw["select"], [*path, "select"], known)
            if not select_configs_of(mine, select):
                msg = f"preset '{raw['name']}' selects no config"
                raise b.r.fail(msg, [*path, "select"])
            out.append(
                Preset(
                    suite=str(suite_name),
                    name=str(raw["name"]),
                    aliases=aliases,
                    per_config=False,
                    select=select,
                    packing=str(raw.get("packing", PER_SERVER)),
                    loc=b.r.loc(path),
                )
            )
    return tuple(out)


def select_configs_of(
    configs: tuple[Config, ...], select: tuple[Selector, ...]
) -> tuple[Config, ...]:
    return tuple(c for c in configs if matches(c, select))
