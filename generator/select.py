"""Selections: cron groups, presets and selectors over declared config fields."""

from __future__ import annotations

from dataclasses import dataclass

from generator.errors import SelectionError, did_you_mean
from generator.memo import once
from generator.model import PER_SERVER, Catalog, Config, Preset, Schedule, Selector


def field_value(config: Config, field: str) -> str:
    return {
        "suite": config.suite,
        "family": config.model.family,
        "precision": config.model.precision,
        "spec": config.spec,
        "model": config.model.name,
        "prefix": config.prefix,
    }[field]


def matches(config: Config, selectors: tuple[Selector, ...]) -> bool:
    return any(
        all(field_value(config, field) in values for field, values in sel.fields)
        for sel in selectors
    )


@dataclass(frozen=True, kw_only=True)
class Selection:
    """A named set of configs, the server mode they run in and how cells become jobs."""

    kind: str  # "all", "suite", "schedule", "preset"
    name: str
    configs: tuple[Config, ...]
    mode: str | None = None
    packing: str = PER_SERVER


@dataclass(frozen=True)
class _Index:
    """Config positions by (field, value), and presets by (suite or None, name or alias)."""

    fields: dict[str, dict[str, frozenset[int]]]
    presets: dict[tuple[str | None, str], list[Preset]]


def _index(catalog: Catalog) -> _Index:
    """Built once per catalog, so selecting for every preset stays linear in configs."""
    return once(catalog, "select index", lambda: _build_index(catalog))


def _build_index(catalog: Catalog) -> _Index:
    fields: dict[str, dict[str, set[int]]] = {}
    for i, config in enumerate(catalog.configs):
        for field in ("suite", "family", "precision", "spec", "model", "prefix"):
            fields.setdefault(field, {}).setdefault(field_value(config, field), set()).add(i)
    presets: dict[tuple[str | None, str], list[Preset]] = {}
    for p in catalog.presets:
        for name in (p.name, *p.aliases):
            presets.setdefault((p.suite, name), []).append(p)
            presets.setdefault((None, name), []).append(p)
    return _Index(
        fields={f: {v: frozenset(ids) for v, ids in by.items()} for f, by in fields.items()},
        presets=presets,
    )


def config_with_prefix(catalog: Catalog, prefix: str) -> Config | None:
    """The first config with `prefix`, found by index."""
    found = _index(catalog).fields.get("prefix", {}).get(prefix)
    return catalog.configs[min(found)] if found else None


def select_configs(
    catalog: Catalog, selectors: tuple[Selector, ...], suite: str | None = None
) -> tuple[Config, ...]:
    index = _index(catalog)
    chosen: set[int] = set()
    for sel in selectors:
        current: frozenset[int] | None = None
        for field, values in sel.fields:
            hit = frozenset().union(*(index.fields[field].get(v, frozenset()) for v in values))
            current = hit if current is None else current & hit
        chosen |= current if current is not None else set(range(len(catalog.configs)))
    configs = (catalog.configs[i] for i in sorted(chosen))
    return tuple(c for c in configs if suite is None or c.suite == suite)


def find_schedule(
    catalog: Catalog, *, name: str | None = None, cron: str | None = None
) -> Schedule:
    for s in catalog.schedules:
        if (name is not None and s.name == name) or (cron is not None and s.cron == cron):
            return s
    known = [s.name for s in catalog.schedules] if name else [s.cron for s in catalog.schedules]
    word = name if name is not None else cron or ""
    what = "cron group" if name is not None else "cron"
    raise SelectionError(f"unknown {what} '{word}'{did_you_mean(word, known)}")


def find_preset(catalog: Catalog, name: str, suite: str | None = None) -> Preset:
    # A preset whose alias repeats its name is listed twice under that name.
    listed = _index(catalog).presets.get((suite, name), [])
    found = list({id(p): p for p in listed}.values())
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        suites = ", ".join(p.suite for p in found)
        raise SelectionError(f"preset '{name}' exists in several suites ({suites}); pass --suite")
    known = [
        n
        for p in catalog.presets
        if suite is None or p.suite == suite
        for n in (p.name, *p.aliases)
    ]
    raise SelectionError(f"unknown preset '{name}'{did_you_mean(name, known)}")


def schedule_configs(catalog: Catalog, schedule: Schedule) -> tuple[Config, ...]:
    return select_configs(catalog, schedule.select)


def preset_configs(catalog: Catalog, preset: Preset) -> tuple[Config, ...]:
    return select_configs(catalog, preset.select, preset.suite)


def selection(
    catalog: Catalog,
    *,
    suite: str | None = None,
    group: str | None = None,
    cron: str | None = None,
    preset: str | None = None,
) -> Selection:
    """At most one of group/cron/preset; --suite narrows any of them."""
    if suite is not None and suite not in {s.name for s in catalog.suites} | {
        s.key for s in catalog.suites
    }:
        known = [s.name for s in catalog.suites]
        raise SelectionError(f"unknown suite '{suite}'{did_you_mean(suite, known)}")
    suite_name = next((s.name for s in catalog.suites if suite in (s.name, s.key)), None)
    if group is not None or cron is not None:
        sched = find_schedule(catalog, name=group, cron=cron)
        configs = schedule_configs(catalog, sched)
        kind, name, mode, packing = "schedule", sched.name, sched.server_mode, sched.packing
    elif preset is not None:
        p = find_preset(catalog, preset, suite_name)
        configs, kind, name, mode = preset_configs(catalog, p), "preset", p.name, None
        packing = p.packing
    else:
        configs, kind, name, mode, packing = catalog.configs, "all", "all", None, PER_SERVER
    if suite_name is not None:
        configs = tuple(c for c in configs if c.suite == suite_name)
        if kind == "all":
            kind, name = "suite", suite_name
    if not configs:
        raise SelectionError(f"the selection {kind} '{name}' has no config")
    return Selection(kind=kind, name=name, configs=configs, mode=mode, packing=packing)
