"""generator.expand.estimate: start-up and point minutes, as docs/planning.md models them."""

from __future__ import annotations

import dataclasses
import math

import pytest

from generator.expand.estimate import point_minutes, shown, startup_minutes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog, Config
    from generator.expand.expanded import Expanded


def config(catalog: Catalog, prefix: str) -> Config:
    return next(c for c in catalog.configs if c.prefix == prefix)


def test_an_estimate_is_shown_in_whole_minutes_rounded_up() -> None:
    assert [shown(m) for m in (6.0, 6.0000000001, 6.2, 0.5)] == [6, 6, 7, 1]


def test_the_point_estimate_follows_the_documented_model(fixture: Expanded) -> None:
    # deepseek-r1-fp8-tp4 at 1024x1024, concurrency 64: 640 prompts and 128 warm-ups.
    minutes = point_minutes(
        fixture.catalog.estimates.point, isl=1024, osl=1024, concurrency=64, requests=768, gpus=4
    )
    waves = 12
    prefill = 1024 * 64 / (5000 * 4)
    decode = 1024 * (20 + 0.05 * 64) / 1000
    assert minutes == pytest.approx(1 + waves * (prefill + decode) / 60)
    assert math.ceil(minutes) == 7
    [cell] = [
        c
        for c in fixture.cells[("deepseek-r1-fp8-tp4", "sglang-atom")]
        if c.id == "deepseek-r1-fp8-tp4-1024-1024-64-0.8"
    ]
    assert (cell.num_prompts, cell.num_warmups) == (640, 128)
    assert cell.minutes == minutes


def test_startup_comes_from_the_config_then_the_model_then_the_size_rule(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    est = catalog.estimates
    ds = config(catalog, "deepseek-r1-fp8-tp4")
    qwen = next(c for c in catalog.configs if c.model.family == "qwen")
    assert (ds.model.params_b, startup_minutes(est, ds)) == (671, 35)
    assert (qwen.model.params_b, startup_minutes(est, qwen)) == (397, 25)
    small = dataclasses.replace(qwen.model, params_b=35.0)
    assert startup_minutes(est, dataclasses.replace(qwen, model=small)) == 10
    unknown = dataclasses.replace(qwen.model, params_b=None)
    assert startup_minutes(est, dataclasses.replace(qwen, model=unknown)) == 35
    own_model = dataclasses.replace(qwen.model, startup_minutes=12.0)
    assert startup_minutes(est, dataclasses.replace(qwen, model=own_model)) == 12
    both = dataclasses.replace(qwen, model=own_model, startup_minutes=50.0)
    assert startup_minutes(est, both) == 50
