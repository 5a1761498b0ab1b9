"""Coverage counts, computed from the catalog (never written by hand)."""

from __future__ import annotations

from typing import TypedDict

from generator.catalog.catalog_types import LEVELS
from generator.catalog.cron import describe
from generator.expand.query import query
from generator.plan.week import WeekPlan, hours_text, plan_week, plural

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded, Run, Selection


class Counts(TypedDict):
    configs: int
    cells: int
    jobs: int


class SuiteCounts(Counts):
    suite: str


class BenchmarkCounts(TypedDict):
    suites: list[SuiteCounts]
    total: Counts


class ScheduleCounts(Counts):
    name: str
    title: str
    cron: str | None
    when: str


class PresetCounts(Counts):
    suite: str | None
    name: str
    aliases: list[str]
    per_config: bool
    gpu_hours: float


class LevelCounts(TypedDict):
    level: str
    suite: str
    cases: int
    runs: int
    ids: list[str]


class Coverage(TypedDict):
    """The coverage counts (docs/coverage.md, `sglang-ci coverage`)."""

    benchmark: BenchmarkCounts
    schedules: list[ScheduleCounts]
    presets: list[PresetCounts]
    accuracy: list[LevelCounts]
    plan: WeekPlan


def _count(configs: int, run: Run) -> Counts:
    return {"configs": configs, "cells": len(run.cells), "jobs": len(run.jobs)}


def preset_label(preset: Selection) -> str:
    """The dropdown label: name, computed counts and the estimated cost (first mode)."""
    run = preset.default_run
    alias = f" / {', '.join(preset.aliases)}" if preset.aliases else ""
    return (
        f"{preset.name}{alias} ({plural(len(preset.configs), 'config')}, "
        f"{plural(len(run.cells), 'cell')}, ~{hours_text(run.packed.gpu_hours)} GPU-h)"
    )


def summary(expanded: Expanded) -> Coverage:
    catalog = expanded.catalog
    suites: list[SuiteCounts] = []
    for suite in catalog.suites:
        q = query(expanded, suite=suite.name)
        suites.append({"suite": suite.name, **_count(len(q.configs), q.run)})
    everything = query(expanded)
    schedules: list[ScheduleCounts] = [
        {
            "name": s.name,
            "title": s.title,
            "cron": s.cron,
            "when": describe(str(s.cron)),
            **_count(len(s.configs), s.default_run),
        }
        for s in expanded.schedules
    ]
    presets: list[PresetCounts] = [
        {
            "suite": p.suite,
            "name": p.name,
            "aliases": list(p.aliases),
            "per_config": p.per_config,
            "configs": len(p.configs),
            "cells": len(p.default_run.cells),
            "jobs": p.default_run.packed.jobs,
            "gpu_hours": round(p.default_run.packed.gpu_hours, 1),
        }
        for p in expanded.presets
    ]
    levels: list[LevelCounts] = []
    for level in LEVELS:
        for acc_suite in catalog.accuracy_suites:
            cases = [c for c in catalog.cases if level in c.levels and c.suite == acc_suite.name]
            levels.append(
                {
                    "level": level,
                    "suite": acc_suite.name,
                    "cases": len(cases),
                    "runs": sum(max(1, len(c.images)) for c in cases),
                    "ids": [c.id for c in cases],
                }
            )
    return {
        "benchmark": {"suites": suites, "total": _count(len(everything.configs), everything.run)},
        "schedules": schedules,
        "presets": presets,
        "accuracy": levels,
        "plan": plan_week(expanded),
    }
