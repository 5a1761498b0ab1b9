"""Coverage counts, computed from the catalog (never written by hand)."""

from __future__ import annotations

from typing import Any

from generator.catalog.catalog_types import LEVELS
from generator.catalog.cron import describe
from generator.expand.query import query
from generator.plan.week import hours_text, plan_week, plural

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded, Run, Selection


def _count(configs: int, run: Run) -> dict[str, int]:
    return {"configs": configs, "cells": len(run.cells), "jobs": len(run.jobs)}


def preset_label(preset: Selection) -> str:
    """The dropdown label: name, computed counts and the estimated cost (first mode)."""
    run = preset.default_run
    alias = f" / {', '.join(preset.aliases)}" if preset.aliases else ""
    return (
        f"{preset.name}{alias} ({plural(len(preset.configs), 'config')}, "
        f"{plural(len(run.cells), 'cell')}, ~{hours_text(run.packed.gpu_hours)} GPU-h)"
    )


def summary(expanded: Expanded) -> dict[str, Any]:
    catalog = expanded.catalog
    suites = []
    for suite in catalog.suites:
        q = query(expanded, suite=suite.name)
        suites.append({"suite": suite.name, **_count(len(q.configs), q.run)})
    everything = query(expanded)
    schedules = [
        {
            "name": s.name,
            "title": s.title,
            "cron": s.cron,
            "when": describe(str(s.cron)),
            **_count(len(s.configs), s.default_run),
        }
        for s in expanded.schedules
    ]
    presets = [
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
    levels = []
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


def markdown(data: dict[str, Any]) -> str:
    """The coverage tables as Markdown."""
    lines = [
        "## Benchmark suites",
        "",
        "| suite | configs | cells | server launches |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {s['suite']} | {s['configs']} | {s['cells']} | {s['jobs']} |"
        for s in data["benchmark"]["suites"]
    ]
    t = data["benchmark"]["total"]
    lines += [
        f"| **total** | {t['configs']} | {t['cells']} | {t['jobs']} |",
        "",
        "## Cron groups",
        "",
        "| cron | when | group | configs | cells | server launches |",
        "|---|---|---|---:|---:|---:|",
    ]
    for s in data["schedules"]:
        lines.append(
            f"| `{s['cron']}` | {s['when']} | {s['title']} | {s['configs']} | "
            f"{s['cells']} | {s['jobs']} |"
        )
    lines += _week_table(data["plan"])
    lines += [
        "",
        "## Manual presets",
        "",
        "| suite | preset | aliases | configs | cells | launches | GPU-h |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for p in data["presets"]:
        lines.append(
            f"| {p['suite']} | `{p['name']}` | {', '.join(p['aliases'])} | "
            f"{p['configs']} | {p['cells']} | {p['jobs']} | {p['gpu_hours']} |"
        )
    lines += [
        "",
        "## Accuracy",
        "",
        "| level | suite | cases | runs | cases |",
        "|---|---|---:|---:|---|",
    ]
    for a in data["accuracy"]:
        lines.append(
            f"| {a['level']} | {a['suite']} | {a['cases']} | {a['runs']} | {', '.join(a['ids'])} |"
        )
    return "\n".join(lines) + "\n"


def _week_table(plan: dict[str, Any]) -> list[str]:
    """The weekly plan: the cron groups packed, and as one job per cell."""
    runners = ", ".join(
        f"{label} ({r['count']} x {r['gpus']} GPUs)" for label, r in plan["runners"].items()
    )
    lines = [
        "",
        "## Weekly plan",
        "",
        (
            f"Estimated with `sglang-ci plan --week` on the declared runners: {runners}. "
            "Wall hours spread each run's jobs over the machines of their runner label; "
            "see [planning.md](planning.md)."
        ),
        "",
        (
            "| cron group | runs a week | cells | launches | GPU-h | wall h "
            "| launches, one job per cell | GPU-h | wall h |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for g in plan["groups"]:
        p, c = g["packed"], g["per_cell"]
        lines.append(
            f"| {g['title']} | {g['runs_per_week']} | {g['cells']} | {p['launches']} | "
            f"{p['gpu_hours']} | {p['wall_hours']} | {c['launches']} | {c['gpu_hours']} | "
            f"{c['wall_hours']} |"
        )
    lines.append(
        f"| **week** | | {plan['cells_per_week']} | {plan['launches_per_week']} | "
        f"{plan['gpu_hours_per_week']} | {plan['wall_hours_per_week']} | "
        f"{plan['per_cell_launches_per_week']} | {plan['per_cell_gpu_hours_per_week']} | "
        f"{plan['per_cell_wall_hours_per_week']} |"
    )
    return lines
