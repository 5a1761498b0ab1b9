"""The coverage tables as Markdown (docs/coverage.md, `sglang-ci coverage`): suites, cron
groups, the weekly plan, presets and accuracy levels, from coverage.summary's counts."""

from __future__ import annotations

from generator.plan.week import SHAPE, week_totals

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.coverage import Coverage
    from generator.plan.week import WeekPlan


def _row(cells: list[object]) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def markdown(data: Coverage) -> str:
    """The coverage tables as Markdown."""
    lines = [
        "## Benchmark suites",
        "",
        "| suite | configs | cells | server launches |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        _row([s["suite"], s["configs"], s["cells"], s["jobs"]]) for s in data["benchmark"]["suites"]
    ]
    t = data["benchmark"]["total"]
    lines += [
        _row(["**total**", t["configs"], t["cells"], t["jobs"]]),
        "",
        "## Cron groups",
        "",
        "| cron | when | group | configs | cells | server launches |",
        "|---|---|---|---:|---:|---:|",
    ]
    for s in data["schedules"]:
        lines.append(
            _row([f"`{s['cron']}`", s["when"], s["title"], s["configs"], s["cells"], s["jobs"]])
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
        cells = [p["configs"], p["cells"], p["jobs"], p["gpu_hours"]]
        lines.append(_row([p["suite"], f"`{p['name']}`", ", ".join(p["aliases"]), *cells]))
    lines += [
        "",
        "## Accuracy",
        "",
        "| level | suite | cases | runs | cases |",
        "|---|---|---:|---:|---|",
    ]
    for a in data["accuracy"]:
        lines.append(_row([a["level"], a["suite"], a["cases"], a["runs"], ", ".join(a["ids"])]))
    return "\n".join(lines) + "\n"


def _week_table(plan: WeekPlan) -> list[str]:
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
        shapes = [shape[k] for shape in (g["packed"], g["per_cell"]) for k in SHAPE]
        lines.append(_row([g["title"], g["runs_per_week"], g["cells"], *shapes]))
    lines.append(f"| **week** | {_row([plan['cells_per_week'], *week_totals(plan)])}")
    return lines
