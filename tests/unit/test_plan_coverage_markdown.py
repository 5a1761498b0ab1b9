"""`generator.plan.coverage_markdown`: the coverage tables as Markdown."""

from __future__ import annotations

from typing import cast

from generator.plan.coverage_markdown import markdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.coverage import Coverage

SHAPE = {"launches": 2, "gpu_hours": 3.5, "wall_hours": 1.5}
DATA = {
    "benchmark": {
        "suites": [{"suite": "SGLang-OOB", "configs": 2, "cells": 20, "jobs": 4}],
        "total": {"configs": 2, "cells": 20, "jobs": 4},
    },
    "schedules": [
        {
            "cron": "0 14 * * 5",
            "when": "Fridays",
            "title": "All",
            "configs": 2,
            "cells": 20,
            "jobs": 4,
        }
    ],
    "plan": {
        "runners": {"mi355": {"count": 2, "gpus": 8}},
        "groups": [
            {"title": "All", "runs_per_week": 1, "cells": 20, "packed": SHAPE, "per_cell": SHAPE}
        ],
        **{f"{s}{k}_per_week": v for s in ("", "per_cell_") for k, v in SHAPE.items()},
        "cells_per_week": 20,
    },
    "presets": [
        {
            "suite": "SGLang-OOB",
            "name": "all",
            "aliases": ["a", "b"],
            "configs": 2,
            "cells": 20,
            "jobs": 4,
            "gpu_hours": 3.5,
        }
    ],
    "accuracy": [{"level": "nightly", "suite": "gsm8k", "cases": 2, "runs": 3, "ids": ["x", "y"]}],
}


def test_each_table_has_a_row_per_entry_and_its_totals() -> None:
    lines = markdown(cast("Coverage", DATA)).splitlines()
    assert lines[4:6] == ["| SGLang-OOB | 2 | 20 | 4 |", "| **total** | 2 | 20 | 4 |"]
    assert lines[11] == "| `0 14 * * 5` | Fridays | All | 2 | 20 | 4 |"
    assert lines[13:16] == [
        "## Weekly plan",
        "",
        (
            "Estimated with `sglang-ci plan --week` on the declared runners: mi355 (2 x 8 GPUs). "
            "Wall hours spread each run's jobs over the machines of their runner label; "
            "see [planning.md](planning.md)."
        ),
    ]
    assert lines[19:21] == [
        "| All | 1 | 20 | 2 | 3.5 | 1.5 | 2 | 3.5 | 1.5 |",
        "| **week** | | 20 | 2 | 3.5 | 1.5 | 2 | 3.5 | 1.5 |",
    ]
    assert lines[-7] == "| SGLang-OOB | `all` | a, b | 2 | 20 | 4 | 3.5 |"
    assert lines[-1] == "| nightly | gsm8k | 2 | 3 | x, y |"
