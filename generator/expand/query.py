"""What `sglang-ci cells/jobs/plan` select: a cron group, preset or suite found by name,
narrowed by suite, in a server mode."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from generator.catalog.catalog_types import LEVELS, PER_SERVER
from generator.errors import SelectionError, did_you_mean
from generator.expand.entries import case_entry
from generator.expand.select import assemble, check_mode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog, Config
    from generator.core.contract import CaseEntry
    from generator.expand.expanded import Expanded, Run, Selection


QueryKind = Literal["all", "suite", "schedule", "preset"]


@dataclass(frozen=True, kw_only=True)
class Query:
    """What `sglang-ci cells/jobs/plan` selected."""

    kind: QueryKind
    name: str
    configs: tuple[Config, ...]
    run: Run


def _suite_name(catalog: Catalog, suite: str | None) -> str | None:
    if suite is None:
        return None
    for s in catalog.suites:
        if suite in (s.name, s.key):
            return s.name
    known = [s.name for s in catalog.suites]
    msg = f"unknown suite '{suite}'{did_you_mean(suite, known)}"
    raise SelectionError(msg)


def find_schedule(expanded: Expanded, *, name: str | None, cron: str | None) -> Selection:
    for s in expanded.schedules:
        if name is not None and s.name == name:
            return s
        if cron is not None and s.cron == cron:
            return s
    if name is not None:
        known = [s.name for s in expanded.schedules]
        msg = f"unknown cron group '{name}'{did_you_mean(name, known)}"
        raise SelectionError(msg)
    known = [str(s.cron) for s in expanded.schedules]
    msg = f"unknown cron '{cron}'{did_you_mean(str(cron), known)}"
    raise SelectionError(msg)


def find_preset(expanded: Expanded, name: str, suite: str | None = None) -> Selection:
    found = [
        p
        for p in expanded.presets
        if (suite is None or p.suite == suite) and name in (p.name, *p.aliases)
    ]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        suites = ", ".join(str(p.suite) for p in found)
        msg = f"preset '{name}' exists in several suites ({suites}); pass --suite"
        raise SelectionError(msg)
    elsewhere = sorted({str(p.suite) for p in expanded.presets if name in (p.name, *p.aliases)})
    if suite is not None and elsewhere:
        msg = (
            f"preset '{name}' is a preset of {' and '.join(elsewhere)}, not of {suite}: "
            f"choose suite {elsewhere[0]} (--suite {elsewhere[0]}), or a {suite} preset"
        )
        raise SelectionError(msg)
    # Within its own kind: a suite's names and aliases, or (no suite) the presets' names,
    # not another suite's short aliases ('all' of SGLang-Mesh for 'all-glm').
    known = [
        n
        for p in expanded.presets
        if suite is None or p.suite == suite
        for n in (p.name, *(p.aliases if suite is not None else ()))
    ]
    hint = did_you_mean(name, known) or "; `sglang-ci summary` lists the presets"
    msg = f"unknown preset '{name}'{hint}"
    raise SelectionError(msg)


def query(
    expanded: Expanded,
    *,
    suite: str | None = None,
    group: str | None = None,
    cron: str | None = None,
    preset: str | None = None,
    mode: str | None = None,
    image: str | None = None,
) -> Query:
    """At most one of group/cron/preset; --suite narrows any of them; --mode picks the
    server mode (default: the cron group's, else each suite's first)."""
    catalog = expanded.catalog
    suite_name = _suite_name(catalog, suite)
    sel: Selection | None = None
    kind: QueryKind
    if group is not None or cron is not None:
        sel = find_schedule(expanded, name=group, cron=cron)
    elif preset is not None:
        sel = find_preset(expanded, preset, suite_name)
    if sel is not None:
        kind, name, configs, packing = sel.kind, sel.name, sel.configs, sel.packing
        chosen = mode if mode is not None else next(iter(sel.runs))
    else:
        kind, name, configs, packing = "all", "all", catalog.configs, PER_SERVER
        chosen = mode
    if suite_name is not None:
        configs = tuple(c for c in configs if c.suite == suite_name)
        if kind == "all":
            kind, name = "suite", suite_name
    if not configs:
        msg = f"the selection {kind} '{name}' has no config"
        raise SelectionError(msg)
    check_mode(catalog, (c.suite for c in configs), chosen, image)
    if sel is not None and suite_name is None and chosen in sel.runs:
        run = sel.runs[chosen]
    else:
        run = assemble(catalog, expanded.cells, expanded.jobs, configs, chosen, packing)
    return Query(kind=kind, name=name, configs=configs, run=run)


def cases(expanded: Expanded, level: str | None, suite: str | None) -> list[CaseEntry]:
    """Accuracy cases: one entry per image a case runs on, at each of its levels (or at
    `level`), of one accuracy suite or all."""
    known = [s.name for s in expanded.catalog.accuracy_suites]
    if suite is not None and suite not in known:
        msg = f"unknown accuracy suite '{suite}'{did_you_mean(suite, known)}"
        raise SelectionError(msg)
    return [
        case_entry(expanded.catalog, r, lv)
        for lv in ((level,) if level else LEVELS)
        for r in expanded.case_runs
        if lv in r.case.levels and (suite is None or r.case.suite == suite)
    ]
