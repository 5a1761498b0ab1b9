"""Cron groups and presets as declared: selectors over config fields (whose values are
checked here); what each one selects is worked out by the expand stage."""

from __future__ import annotations

from generator.catalog.catalog_types import (
    PACKINGS,
    PER_SERVER,
    SELECTOR_FIELDS,
    Config,
    Preset,
    Schedule,
    Selector,
    field_value,
    one_of,
)
from generator.catalog.cron import cron_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.benchmark_catalog import BenchmarkBuilder


def known_values(b: BenchmarkBuilder, configs: tuple[Config, ...]) -> dict[str, set[str]]:
    """Every value each selector field has in the catalog (suites: every declared one)."""
    known: dict[str, set[str]] = {field: set() for field in SELECTOR_FIELDS}
    for c in configs:
        for field in SELECTOR_FIELDS:
            known[field].add(str(field_value(c, field)))
    known["suite"] |= set(b.suites)
    return known


def build_schedules(b: BenchmarkBuilder, known: dict[str, set[str]]) -> tuple[Schedule, ...]:
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
                msg = f"schedule {what} repeats the one at line {other.loc.line}"
                raise b.r.fail(msg, [*path, what])
        mode = raw.get("server_mode")
        if mode is not None:
            b.r.known(str(mode), b.modes, "server mode", [*path, "server_mode"])
        out.append(
            Schedule(
                name=str(raw["name"]),
                title=str(raw["title"]),
                cron=cron,
                server_mode=None if mode is None else str(mode),
                select=b.r.selectors(raw["select"], [*path, "select"], known),
                packing=one_of(raw.get("packing", PER_SERVER), PACKINGS),
                loc=b.r.loc(path),
                select_loc=b.r.loc([*path, "select"]),
            )
        )
    return tuple(out)


def build_presets(
    b: BenchmarkBuilder, configs: tuple[Config, ...], known: dict[str, set[str]]
) -> tuple[Preset, ...]:
    """One preset per config (every suite), then the declared group presets."""
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
                select_loc=c.loc,
            )
        )
    for suite_name, entries in b.r.doc["presets"].items():
        spath: list[str | int] = ["presets", suite_name]
        b.r.known(str(suite_name), b.suites, "suite", spath)
        used = names[str(suite_name)]
        for i, raw in enumerate(entries):
            path: list[str | int] = [*spath, i]
            aliases = tuple(str(a) for a in raw.get("aliases", []))
            for name in (str(raw["name"]), *aliases):
                if name in used:
                    msg = f"preset name '{name}' is already used at line {used[name]}"
                    raise b.r.fail(msg, [*path, "name"])
                used[name] = b.r.loc(path).line
            out.append(
                Preset(
                    suite=str(suite_name),
                    name=str(raw["name"]),
                    aliases=aliases,
                    per_config=False,
                    select=b.r.selectors(raw["select"], [*path, "select"], known),
                    packing=one_of(raw.get("packing", PER_SERVER), PACKINGS),
                    loc=b.r.loc(path),
                    select_loc=b.r.loc([*path, "select"]),
                )
            )
    return tuple(out)
