"""`generator.plan.change_text`: the week's change as a plain-text table."""

from __future__ import annotations

from typing import Any, cast

from generator.plan.change_text import change_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.plan.change import ChangeReport


def delta(base: float, head: float) -> dict[str, float]:
    return {"base": base, "head": head, "change": round(head - base, 1)}


def change(configs: list[dict[str, Any]]) -> ChangeReport:
    return cast(
        "ChangeReport",
        {
            "base": "main",
            "merge_base": "0123456789abcdef",
            "groups": [{"name": "nightly", "launches": delta(2, 3), "gpu_hours": delta(8, 12.5)}],
            "configs": configs,
            "launches_per_week": delta(2, 3),
            "gpu_hours_per_week": delta(8, 12.5),
        },
    )


def test_a_change_shows_its_totals_groups_and_configs_with_who_runs_them() -> None:
    config = {
        "prefix": "qwen-tp8",
        "launches": delta(0, 1),
        "gpu_hours": delta(0, 4.5),
        "groups": {"nightly": 7},
    }
    assert change_text(change([config])).splitlines() == [
        "week against main (merge base 0123456789ab): 2 -> 3 launches (+1), 8 -> 12.5 GPU-h (+4.5)",
        "",
        "            launches                          GPU-h",
        "cron group      base      head    change       base       head    change",
        "nightly            2         3        +1          8       12.5      +4.5",
        "per week           2         3        +1          8       12.5      +4.5",
        "",
        "config          base      head    change       base       head    change",
        "qwen-tp8           0         1        +1          0        4.5      +4.5",
        "",
        "qwen-tp8: run by nightly (7 a week)",
    ]


def test_a_change_that_moves_no_config_says_so() -> None:
    assert change_text(change([])).endswith("\nno config's week changed\n")
