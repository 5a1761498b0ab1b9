"""`generator.plan.coverage`: the coverage counts of the catalogs (suites, cron groups,
presets, accuracy levels, the week) and a preset's dropdown label."""

from __future__ import annotations

import dataclasses

from generator.plan.coverage import preset_label, summary
from generator.plan.week import plan_week

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_the_benchmark_counts_are_per_suite_and_in_total(fixture: Expanded) -> None:
    assert summary(fixture)["benchmark"] == {
        "suites": [
            {"suite": "SGLang-OOB", "configs": 12, "cells": 120, "jobs": 12},
            {"suite": "SGLang-Mesh", "configs": 10, "cells": 71, "jobs": 17},
        ],
        "total": {"configs": 22, "cells": 191, "jobs": 29},
    }


def test_each_cron_group_is_described_with_its_counts(fixture: Expanded) -> None:
    got = summary(fixture)
    assert got["schedules"][0] == {
        "name": "oob-deepseek-non-mtp",
        "title": "OOB DeepSeek non-MTP",
        "cron": "0 14 * * 1,3",
        "when": "At 02:00 PM, only on Monday and Wednesday (UTC)",
        "configs": 6,
        "cells": 60,
        "jobs": 6,
    }
    assert [s["name"] for s in got["schedules"]] == [s.name for s in fixture.schedules]
    assert got["plan"] == plan_week(fixture)


def test_a_preset_is_counted_with_its_packed_jobs_and_hours(fixture: Expanded) -> None:
    presets = summary(fixture)["presets"]
    assert presets[0] == {
        "suite": "SGLang-OOB",
        "name": "deepseek-r1-fp8-tp4",
        "aliases": [],
        "per_config": True,
        "configs": 1,
        "cells": 10,
        "jobs": 1,
        "gpu_hours": 13.3,
    }
    [ds_all] = [p for p in presets if p["name"] == "ds-all"]
    assert (ds_all["aliases"], ds_all["configs"], ds_all["cells"]) == (["all"], 10, 71)


def test_each_accuracy_level_counts_its_cases_and_their_runs_per_image(fixture: Expanded) -> None:
    levels = summary(fixture)["accuracy"]
    assert [(x["level"], x["suite"], x["cases"], x["runs"]) for x in levels] == [
        ("nightly", "atom", 15, 15),
        ("nightly", "sglang", 1, 2),  # one case on two images
        ("pr", "atom", 3, 3),
        ("pr", "sglang", 0, 0),
    ]
    assert levels[2]["ids"] == [
        "deepseek-r1-fp8-tp4",
        "qwen3-5-35b-a3b-fp8-tp2",
        "deepseek-r1-fp4-tp4",
    ]


def test_a_preset_label_has_its_aliases_counts_and_rounded_hours(fixture: Expanded) -> None:
    presets = {p.name: p for p in fixture.presets}
    assert preset_label(presets["ds-all"]) == "ds-all / all (10 configs, 71 cells, ~169 GPU-h)"
    assert preset_label(presets["deepseek-r1-fp8-tp4"]) == (
        "deepseek-r1-fp8-tp4 (1 config, 10 cells, ~13 GPU-h)"
    )
    two = dataclasses.replace(presets["ds-all"], aliases=("all", "everything"))
    assert preset_label(two).startswith("ds-all / all, everything (10 configs,")
