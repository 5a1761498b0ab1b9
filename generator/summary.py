"""Coverage counts, computed from the catalog (never written by hand)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.cron import describe
from generator.expand import case_server, cells_of
from generator.jobset import jobs_of
from generator.memo import once_for
from generator.model import PER_CELL, Catalog, Config, Preset
from generator.plan import Shape, hours_text, plan_week, plural, shape
from generator.select import preset_configs, schedule_configs


@dataclass(frozen=True, kw_only=True)
class Count:
    configs: int
    cells: int
    jobs: int


def count(catalog: Catalog, configs: tuple[Config, ...], mode: str | None = None) -> Count:
    cells = cells_of(catalog, configs, mode)
    return Count(configs=len(configs), cells=len(cells), jobs=len(jobs_of(catalog, configs, mode)))


def preset_cost(catalog: Catalog, preset: Preset) -> tuple[int, int, Shape]:
    """Configs, cells and the packed shape of a preset (in its suite's first mode)."""

    def make() -> tuple[int, int, Shape]:
        configs = preset_configs(catalog, preset)
        jobs = jobs_of(catalog, configs, per_cell=preset.packing == PER_CELL)
        return len(configs), sum(len(j.cells) for j in jobs), shape(catalog, jobs)

    return once_for(catalog, preset, "preset_cost", make)


def preset_label(catalog: Catalog, preset: Preset) -> str:
    """The dropdown label: name, computed counts and the estimated cost."""
    configs, cells, packed = preset_cost(catalog, preset)
    alias = f" / {', '.join(preset.aliases)}" if preset.aliases else ""
    return (
        f"{preset.name}{alias} ({plural(configs, 'config')}, {plural(cells, 'cell')}, "
        f"~{hours_text(packed.gpu_hours)} GPU-h)"
    )


def summary(catalog: Catalog) -> dict[str, Any]:
    suites = []
    for suite in catalog.suites:
        n = count(catalog, tuple(c for c in catalog.configs if c.suite == suite.name))
        suites.append({"suite": suite.name, "configs": n.configs, "cells": n.cells, "jobs": n.jobs})
    total = count(catalog, catalog.configs)
    schedules = []
    for s in catalog.schedules:
        n = count(catalog, schedule_configs(catalog, s), s.server_mode)
        schedules.append(
            {
                "name": s.name,
                "title": s.title,
                "cron": s.cron,
                "when": describe(s.cron),
                "configs": n.configs,
                "cells": n.cells,
                "jobs": n.jobs,
            }
        )
    presets = []
    for p in catalog.presets:
        configs, cells, packed = preset_cost(catalog, p)
        presets.append(
            {
                "suite": p.suite,
                "name": p.name,
                "aliases": list(p.aliases),
                "per_config": p.per_config,
                "configs": configs,
                "cells": cells,
                "jobs": packed.jobs,
                "gpu_hours": round(packed.gpu_hours, 1),
            }
        )
    levels = []
    for level in ("nightly", "pr"):
        for suite_name in [s.name for s in catalog.accuracy_suites]:
            cases = [c for c in catalog.cases if level in c.levels and c.suite == suite_name]
            runs = sum(max(1, len(c.images)) for c in cases)
            levels.append(
                {
                    "level": level,
                    "suite": suite_name,
                    "cases": len(cases),
                    "runs": runs,
                    "ids": [c.id for c in cases],
                }
            )
    for case in catalog.cases:
        case_server(catalog, case)
    return {
        "benchmark": {
            "suites": suites,
            "total": {"configs": total.configs, "cells": total.cells, "jobs": total.jobs},
        },
        "schedules": schedules,
        "presets": presets,
        "accuracy": levels,
        "plan": plan_week(catalog),
    }


def markdown(data: dict[str, Any]) -> str:
    """The coverage tables as Markdown."""
    lines = [
        "## Benchmark suites",
        "",
        "| suite | configs | cells | server launches |",
        "|---|---:|---:|---:|",
    ]
    for s in data["benchmark"]["suites"]:
        lines.append(f"| {s['suite']} | {s['configs']} | {s['cells']} | {s['jobs']} |")
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
        f"Estimated with `sglang-ci plan --week` on the declared runners: {runners}. "
        "Wall hours spread each run's jobs over the machines of their runner label; "
        "see [planning.md](planning.md).",
        "",
        "| cron group | runs a week | cells | launches | GPU-h | wall h "
        "| launches, one job per cell | GPU-h | wall h |",
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
