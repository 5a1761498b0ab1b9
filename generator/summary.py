"""Coverage counts, computed from the catalog (never written by hand)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.cron import describe
from generator.expand import Cell, case_server, config_cells
from generator.model import Catalog, Config, Preset
from generator.pack import pack
from generator.select import preset_configs, schedule_configs


@dataclass(frozen=True, kw_only=True)
class Count:
    configs: int
    cells: int
    jobs: int


def cells_of(catalog: Catalog, configs: tuple[Config, ...], mode: str | None = None) -> list[Cell]:
    return [cell for c in configs for cell in config_cells(catalog, c, mode)]


def count(catalog: Catalog, configs: tuple[Config, ...], mode: str | None = None) -> Count:
    cells = cells_of(catalog, configs, mode)
    return Count(configs=len(configs), cells=len(cells), jobs=len(pack(cells)))


def preset_label(catalog: Catalog, preset: Preset) -> str:
    """The dropdown label: name and computed counts."""
    n = count(catalog, preset_configs(catalog, preset))
    alias = f" / {', '.join(preset.aliases)}" if preset.aliases else ""
    return f"{preset.name}{alias} ({n.configs} configs, {n.cells} cells)"


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
        n = count(catalog, preset_configs(catalog, p))
        presets.append(
            {
                "suite": p.suite,
                "name": p.name,
                "aliases": list(p.aliases),
                "per_config": p.per_config,
                "configs": n.configs,
                "cells": n.cells,
                "jobs": n.jobs,
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
    lines += [
        "",
        "## Manual presets",
        "",
        "| suite | preset | aliases | configs | cells |",
        "|---|---|---|---:|---:|",
    ]
    for p in data["presets"]:
        lines.append(
            f"| {p['suite']} | `{p['name']}` | {', '.join(p['aliases'])} | "
            f"{p['configs']} | {p['cells']} |"
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
