"""`sglang-ci plan --week` as plain-text tables: each cron group's runs a week, packed and
one job per cell, then what the A/B confirmation may cost."""

from __future__ import annotations

from generator.plan.week import AB_COLUMNS, SHAPE, row, spans, week_totals

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.week import WeekPlan


def week_text(data: WeekPlan) -> str:
    runners = ", ".join(
        f"{label} {r['count']} x {r['gpus']} GPUs" for label, r in data["runners"].items()
    )
    width = max([len(g["name"]) for g in data["groups"]] + [10])
    widths = [width, 9, 6, 8, 7, 7, 8, 7, 7]
    shape = ["launches", "GPU-h", "wall h"]
    lines = [
        f"week: {len(data['groups'])} cron groups; runners: {runners}",
        "",
        spans(
            [
                ("", sum(widths[:3]) + 4),
                ("packed", sum(widths[3:6]) + 4),
                ("one job per cell", sum(widths[6:]) + 4),
            ]
        ),
        row(["cron group", "runs/week", "cells", *shape, *shape], widths),
    ]
    for g in data["groups"]:
        shapes = [shape[k] for shape in (g["packed"], g["per_cell"]) for k in SHAPE]
        lines.append(row([g["name"], g["runs_per_week"], g["cells"], *shapes], widths))
    lines.append(row(["per week", "", data["cells_per_week"], *week_totals(data)], widths))
    lines += _confirmation(data, width)
    return "\n".join(lines) + "\n"


def _confirmation(data: WeekPlan, width: int) -> list[str]:
    c = data["confirmation"]
    if not any(g["confirmation"]["enabled"] for g in data["groups"]):
        return ["", f"A/B confirmation: {c['settings']}"]
    widths = [width, 9, 5, 8, 7, 8]
    lines = [
        "",
        (
            f"A/B confirmation at most: {c['settings']}; expected: where nothing changed, "
            f"{c['ab_jobs_per_server_run']} A/B jobs a server-run (make bench)"
        ),
        "",
        row(["cron group", "runs/week", "jobs", "launches", "GPU-h", "expected"], widths),
    ]
    lines += [
        row([g["name"], g["runs_per_week"], *(g["confirmation"][k] for k in AB_COLUMNS)], widths)
        for g in data["groups"]
    ]
    per_week = [c["jobs_per_week"], c["launches_per_week"], c["gpu_hours_per_week"]]
    lines.append(row(["per week", "", *per_week, c["expected_gpu_hours_per_week"]], widths))
    share = 100 * c["expected_gpu_hours_per_week"] / data["gpu_hours_per_week"]
    lines.append(
        f"expected A/B GPU-h a week: {c['expected_gpu_hours_per_week']}, "
        f"{share:.1f}% of the benchmarks' {data['gpu_hours_per_week']}"
    )
    return lines
