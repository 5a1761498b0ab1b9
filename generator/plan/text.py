"""`sglang-ci plan` as plain-text tables (a week's: week_text.py)."""

from __future__ import annotations

from generator.plan.week import SHAPE, plural, row
from generator.plan.week_text import week_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.week import QueryPlan, RunConfirmation, WeekPlan

KIND_NAMES = {"schedule": "cron group", "preset": "preset", "suite": "suite", "all": "all"}


def format_text(data: QueryPlan | WeekPlan) -> str:
    """A plain-text table of `plan` data."""
    if data["kind"] == "week":
        return week_text(data)
    widths = [16, 8, 7, 7, 12]
    lines = [
        (
            f"{KIND_NAMES[data['kind']]} {data['name']}: "
            f"{plural(data['configs'], 'config')}, {plural(data['cells'], 'cell')}"
        ),
        "",
        row(["shape", "launches", "GPU-h", "wall h", "longest job"], widths),
    ]
    for name, s in (("packed", data["packed"]), ("one per cell", data["per_cell"])):
        cells = [name, *(s[k] for k in SHAPE), f"{s['longest_job_minutes']} min"]
        lines.append(row(cells, widths))
    width = max(len(j["id"]) for j in data["jobs"])
    jw = [max(width, 3), 6, 8, 8]
    lines += ["", row(["job", "points", "start-up", "estimate"], jw)]
    lines += [
        row(
            [j["id"], j["points"], f"{j['startup_minutes']} min", f"{j['estimate_minutes']} min"],
            jw,
        )
        for j in data["jobs"]
    ]
    if "confirmation" in data:
        lines += ["", *_confirmation_run(data["confirmation"])]
    return "\n".join(lines) + "\n"


def _confirmation_run(c: RunConfirmation) -> list[str]:
    """The A/B confirmation budget of one run."""
    if not c["enabled"]:
        return [f"A/B confirmation: {c['settings']}"]
    return [
        f"A/B confirmation at most, per run: {c['settings']}",
        f"  {plural(c['jobs'], 'job')}, {plural(c['launches'], 'server launch')}".replace(
            "launchs", "launches"
        )
        + f", {c['gpu_hours']} GPU-h, longest job {c['longest_minutes']} min",
        f"  expected where nothing changed: {c['expected_gpu_hours']} GPU-h",
    ]
