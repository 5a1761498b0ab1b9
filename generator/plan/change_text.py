"""`sglang-ci plan --week --base REF` as a plain-text table: a line of totals, the cron
groups, the configs (change.py computes the change)."""

from __future__ import annotations

from generator.plan.week import row, signed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.change import ChangeReport, ConfigChange, Delta

SIDES = ["base", "head", "change"]


def change_text(data: ChangeReport) -> str:
    """The change as a plain-text table: a line of totals, the cron groups, the configs."""
    launches, hours = data["launches_per_week"], data["gpu_hours_per_week"]
    lines = [
        (
            f"week against {data['base']} (merge base {data['merge_base'][:12]}): "
            f"{launches['base']} -> {launches['head']} launches ({signed(launches['change'])}), "
            f"{hours['base']} -> {hours['head']} GPU-h ({signed(hours['change'])})"
        ),
        "",
    ]
    width = max([len(g["name"]) for g in data["groups"]] + [10])
    lines.append(_row(["", "launches", "", "", "GPU-h", "", ""], width))
    lines.append(_row(["cron group", *SIDES, *SIDES], width))
    lines += [
        _row([g["name"], *_cells(g["launches"], g["gpu_hours"])], width) for g in data["groups"]
    ]
    lines.append(_row(["per week", *_cells(launches, hours)], width))
    if data["configs"]:
        width = max([len(c["prefix"]) for c in data["configs"]] + [10])
        lines += ["", _row(["config", *SIDES, *SIDES], width)]
        lines += [
            _row([c["prefix"], *_cells(c["launches"], c["gpu_hours"])], width)
            for c in data["configs"]
        ]
        lines += ["", *(_who_runs(c) for c in data["configs"])]
    else:
        lines += ["", "no config's week changed"]
    return "\n".join(lines) + "\n"


def _who_runs(config: ConfigChange) -> str:
    """`prefix: run by G (N a week), ...`: the cron groups the head runs a config in."""
    groups = config["groups"]
    if not groups:
        return f"{config['prefix']}: run by no cron group"
    runs = ", ".join(f"{name} ({n} a week)" for name, n in groups.items())
    return f"{config['prefix']}: run by {runs}"


def _cells(launches: Delta, hours: Delta) -> list[str]:
    return [
        t for d in (launches, hours) for t in (str(d["base"]), str(d["head"]), signed(d["change"]))
    ]


def _row(cells: list[object], width: int) -> str:
    return row(cells, [width, 8, 8, 8, 9, 9, 8])
