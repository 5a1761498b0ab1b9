"""`sglang-ci plan` as plain-text tables."""

from __future__ import annotations

from typing import Any

from generator.plan.week import plural


def _row(cells: list[object], widths: list[int]) -> str:
    out = [str(cells[0]).ljust(widths[0])]
    out += [str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join(out).rstrip()


def _spans(spans: list[tuple[str, int]]) -> str:
    """A heading over column groups: each text right-aligned over its span."""
    return "  ".join(text.rjust(width) for text, width in spans).rstrip()


KIND_NAMES = {"schedule": "cron group", "preset": "preset", "suite": "suite", "all": "all"}


def format_text(data: dict[str, Any]) -> str:
    """A plain-text table of `plan` data."""
    if data["kind"] == "week":
        return _week_text(data)
    p, c = data["packed"], data["per_cell"]
    widths = [16, 8, 7, 7, 12]
    lines = [
        (
            f"{KIND_NAMES[data['kind']]} {data['name']}: "
            f"{plural(data['configs'], 'config')}, {plural(data['cells'], 'cell')}"
        ),
        "",
        _row(["shape", "launches", "GPU-h", "wall h", "longest job"], widths),
        _row(
            [
                "packed",
                p["launches"],
                p["gpu_hours"],
                p["wall_hours"],
                f"{p['longest_job_minutes']} min",
            ],
            widths,
        ),
        _row(
            [
                "one per cell",
                c["launches"],
                c["gpu_hours"],
                c["wall_hours"],
                f"{c['longest_job_minutes']} min",
            ],
            widths,
        ),
        "",
    ]
    width = max(len(j["id"]) for j in data["jobs"])
    jw = [max(width, 3), 6, 8, 8]
    lines.append(_row(["job", "points", "start-up", "estimate"], jw))
    lines += [
        _row(
            [j["id"], j["points"], f"{j['startup_minutes']} min", f"{j['estimate_minutes']} min"],
            jw,
        )
        for j in data["jobs"]
    ]
    if "confirmation" in data:
        lines += ["", *_confirmation_run(data["confirmation"])]
    return "\n".join(lines) + "\n"


def _confirmation_run(c: dict[str, Any]) -> list[str]:
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


def _week_confirmation(data: dict[str, Any], width: int) -> list[str]:
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
        _row(["cron group", "runs/week", "jobs", "launches", "GPU-h", "expected"], widths),
    ]
    for g in data["groups"]:
        b = g["confirmation"]
        cells = [g["runs_per_week"], b["jobs"], b["launches"], b["gpu_hours"]]
        lines.append(_row([g["name"], *cells, b["expected_gpu_hours"]], widths))
    lines.append(
        _row(
            [
                "per week",
                "",
                c["jobs_per_week"],
                c["launches_per_week"],
                c["gpu_hours_per_week"],
                c["expected_gpu_hours_per_week"],
            ],
            widths,
        )
    )
    share = 100 * c["expected_gpu_hours_per_week"] / data["gpu_hours_per_week"]
    lines.append(
        f"expected A/B GPU-h a week: {c['expected_gpu_hours_per_week']}, "
        f"{share:.1f}% of the benchmarks' {data['gpu_hours_per_week']}"
    )
    return lines


def _week_text(data: dict[str, Any]) -> str:
    runners = ", ".join(
        f"{label} {r['count']} x {r['gpus']} GPUs" for label, r in data["runners"].items()
    )
    width = max([len(g["name"]) for g in data["groups"]] + [10])
    widths = [width, 9, 6, 8, 7, 7, 8, 7, 7]
    lines = [
        f"week: {len(data['groups'])} cron groups; runners: {runners}",
        "",
        _spans(
            [
                ("", sum(widths[:3]) + 4),
                ("packed", sum(widths[3:6]) + 4),
                ("one job per cell", sum(widths[6:]) + 4),
            ]
        ),
        _row(
            [
                "cron group",
                "runs/week",
                "cells",
                "launches",
                "GPU-h",
                "wall h",
                "launches",
                "GPU-h",
                "wall h",
            ],
            widths,
        ),
    ]
    for g in data["groups"]:
        p, c = g["packed"], g["per_cell"]
        lines.append(
            _row(
                [
                    g["name"],
                    g["runs_per_week"],
                    g["cells"],
                    p["launches"],
                    p["gpu_hours"],
                    p["wall_hours"],
                    c["launches"],
                    c["gpu_hours"],
                    c["wall_hours"],
                ],
                widths,
            )
        )
    lines.append(
        _row(
            [
                "per week",
                "",
                data["cells_per_week"],
                data["launches_per_week"],
                data["gpu_hours_per_week"],
                data["wall_hours_per_week"],
                data["per_cell_launches_per_week"],
                data["per_cell_gpu_hours_per_week"],
                data["per_cell_wall_hours_per_week"],
            ],
            widths,
        )
    )
    lines += _week_confirmation(data, width)
    return "\n".join(lines) + "\n"
