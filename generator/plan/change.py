"""`sglang-ci plan --week --base REF`: the server launches and GPU-hours a change adds to
the week, or removes from it.

The base is the catalogs committed at the merge base of REF and HEAD (as `sglang-ci diff`
takes it), planned by this checkout's generator, so the difference is the catalogs'; the
head is the working tree's catalogs. Both are planned as `plan --week` plans them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from generator.catalog import ACCURACY, BENCHMARK, load
from generator.catalog.cron import runs_per_week
from generator.errors import CatalogError, Loc
from generator.expand import expand
from generator.expand.cost import shape
from generator.git import output, show
from generator.plan.week import plan_week, tidy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def expanded_at_base(root: Path, ref: str) -> tuple[str, Expanded]:
    """(the merge base's commit, its catalogs expanded by this generator)."""
    commit = output(root, "merge-base", ref, "HEAD").strip()
    with tempfile.TemporaryDirectory(prefix="sglang-ci-base-") as tmp:
        base = Path(tmp)
        (base / "catalogs").mkdir()
        for rel in (BENCHMARK, ACCURACY):
            (base / rel).write_bytes(show(root, commit, rel))
        try:
            return commit, expand(load(base))
        except CatalogError as e:
            loc = e.loc
            if loc is not None:
                rel = BENCHMARK if loc.file.endswith(BENCHMARK) else ACCURACY
                loc = Loc(f"{ref}:{rel}", loc.line)
            msg = f"{e.message} (the catalogs at {ref})"
            raise CatalogError(msg, loc) from e


def _per_config(expanded: Expanded) -> dict[str, tuple[float, float]]:
    """Each config's launches and GPU-hours in a week of the cron groups."""
    runners = {r.label: r for r in expanded.catalog.runners}
    out: dict[str, tuple[float, float]] = {}
    for s in expanded.schedules:
        runs = runs_per_week(str(s.cron))
        for config in s.configs:
            jobs = [j for j in s.default_run.jobs if j.config is config]
            cost = shape(runners, jobs)
            launches, hours = out.get(config.prefix, (0.0, 0.0))
            out[config.prefix] = (launches + runs * cost.jobs, hours + runs * cost.gpu_hours)
    return out


def _groups_of(expanded: Expanded) -> dict[str, dict[str, float | int]]:
    """The cron groups that run each config, with their runs a week."""
    out: dict[str, dict[str, float | int]] = {}
    for s in expanded.schedules:
        for config in s.configs:
            out.setdefault(config.prefix, {})[s.name] = tidy(runs_per_week(str(s.cron)))
    return out


def _delta(base: float, head: float) -> dict[str, float | int]:
    return {
        "base": tidy(round(base, 1)),
        "head": tidy(round(head, 1)),
        "change": tidy(round(head - base, 1)),
    }


def week_change(base: Expanded, head: Expanded) -> dict[str, Any]:
    """Launches and GPU-hours per week, per cron group and per config, base and head."""
    weeks = {"base": plan_week(base), "head": plan_week(head)}
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for side, week in weeks.items():
        for g in week["groups"]:
            groups.setdefault(g["name"], {})[side] = g
    group_rows = []
    for name, sides in groups.items():
        b, h = sides.get("base"), sides.get("head")
        group_rows.append(
            {
                "name": name,
                "runs_per_week": {
                    "base": b["runs_per_week"] if b else 0,
                    "head": h["runs_per_week"] if h else 0,
                },
                "launches": _delta(
                    b["runs_per_week"] * b["packed"]["launches"] if b else 0,
                    h["runs_per_week"] * h["packed"]["launches"] if h else 0,
                ),
                "gpu_hours": _delta(
                    b["runs_per_week"] * b["packed"]["gpu_hours"] if b else 0,
                    h["runs_per_week"] * h["packed"]["gpu_hours"] if h else 0,
                ),
            }
        )
    old, new = _per_config(base), _per_config(head)
    runs_by = _groups_of(head)
    configs = []
    for prefix in dict.fromkeys([*old, *new]):
        (bl, bh), (hl, hh) = old.get(prefix, (0.0, 0.0)), new.get(prefix, (0.0, 0.0))
        if (round(bl, 1), round(bh, 1)) != (round(hl, 1), round(hh, 1)):
            configs.append(
                {
                    "prefix": prefix,
                    "launches": _delta(bl, hl),
                    "gpu_hours": _delta(bh, hh),
                    "groups": runs_by.get(prefix, {}),
                }
            )
    b, h = weeks["base"], weeks["head"]
    return {
        "kind": "week-change",
        "groups": group_rows,
        "configs": configs,
        "launches_per_week": _delta(b["launches_per_week"], h["launches_per_week"]),
        "gpu_hours_per_week": _delta(b["gpu_hours_per_week"], h["gpu_hours_per_week"]),
        "cells_per_week": _delta(b["cells_per_week"], h["cells_per_week"]),
    }


def _signed(value: float) -> str:
    return f"+{value}" if value > 0 else str(value)


def change_text(data: dict[str, Any]) -> str:
    """The change as a plain-text table: a line of totals, the cron groups, the configs."""
    launches, hours = data["launches_per_week"], data["gpu_hours_per_week"]
    lines = [
        (
            f"week against {data['base']} (merge base {data['merge_base'][:12]}): "
            f"{launches['base']} -> {launches['head']} launches ({_signed(launches['change'])}), "
            f"{hours['base']} -> {hours['head']} GPU-h ({_signed(hours['change'])})"
        ),
        "",
    ]
    width = max([len(g["name"]) for g in data["groups"]] + [10])
    head = ["", "launches", "", "", "GPU-h", "", ""]
    lines.append(_row(head, width))
    lines.append(_row(["cron group", "base", "head", "change", "base", "head", "change"], width))
    lines += [_row([g["name"], *_cells(g)], width) for g in data["groups"]]
    lines.append(
        _row(["per week", *_cells(data, "launches_per_week", "gpu_hours_per_week")], width)
    )
    if data["configs"]:
        width = max([len(c["prefix"]) for c in data["configs"]] + [10])
        lines += ["", _row(["config", "base", "head", "change", "base", "head", "change"], width)]
        lines += [_row([c["prefix"], *_cells(c)], width) for c in data["configs"]]
        lines += ["", *(_who_runs(c) for c in data["configs"])]
    else:
        lines += ["", "no config's week changed"]
    return "\n".join(lines) + "\n"


def _who_runs(config: dict[str, Any]) -> str:
    """`prefix: run by G (N a week), ...`: the cron groups the head runs a config in."""
    groups = config["groups"]
    if not groups:
        return f"{config['prefix']}: run by no cron group"
    runs = ", ".join(f"{name} ({n} a week)" for name, n in groups.items())
    return f"{config['prefix']}: run by {runs}"


def _cells(row: dict[str, Any], launches: str = "launches", hours: str = "gpu_hours") -> list[str]:
    a, b = row[launches], row[hours]
    return [
        str(a["base"]),
        str(a["head"]),
        _signed(a["change"]),
        str(b["base"]),
        str(b["head"]),
        _signed(b["change"]),
    ]


def _row(cells: list[str], width: int) -> str:
    widths = [width, 8, 8, 8, 9, 9, 8]
    out = [cells[0].ljust(widths[0])]
    out += [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join(out).rstrip()
