"""generator.expand.custom: a dispatch's configs and ad-hoc points, as expand builds jobs."""

from __future__ import annotations

import pytest

from generator.catalog.catalog_types import Pair
from generator.errors import SelectionError
from generator.expand.custom import MAX_POINTS, Point, custom_jobs, find_configs, parse_points

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_points_parse_with_spaces_and_repeats_kept_once() -> None:
    assert parse_points(" 1024, 1024 ,64,0.8; 8192,1,512,1 ;1024,1024,64,0.8;") == (
        Point(pair=Pair(isl=1024, osl=1024), concurrency=64, ratio=0.8),
        Point(pair=Pair(isl=8192, osl=1), concurrency=512, ratio=1.0),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (" ; ", "points: give at least one ISL,OSL,CONC,RATIO"),
        ("1,1,1,1;" * (MAX_POINTS + 1), f"points: {MAX_POINTS + 1} items; at most {MAX_POINTS}"),
        ("1024,1024,64,0.8;1024,1024,64", ("points: item 2 '1024,1024,64' is not ISL,OSL,CONC,"
          "RATIO (e.g. 1024,1024,64,0.8; ISL and OSL of at most 9 digits, CONC of at most 6)")),
        ("1024,1024,64,1.5", ("points: item 1 '1024,1024,64,1.5' needs ISL, OSL and CONC of at "
          "least 1 and a RATIO in (0, 1]")),
    ],
    ids=["empty", "too-many", "three-numbers", "ratio-above-one"],
)  # fmt: skip
def test_bad_points_are_refused_naming_the_first_bad_item(text: str, message: str) -> None:
    with pytest.raises(SelectionError) as info:
        parse_points(text)
    assert str(info.value) == message


def test_configs_are_taken_in_the_order_given_once_each(fixture: Expanded) -> None:
    found = find_configs(
        fixture, "qwen3-5-397b-a17b-fp8-tp8, deepseek-r1-fp8-tp4,,qwen3-5-397b-a17b-fp8-tp8"
    )
    assert [c.prefix for c in found] == ["qwen3-5-397b-a17b-fp8-tp8", "deepseek-r1-fp8-tp4"]
    with pytest.raises(SelectionError) as info:
        find_configs(fixture, "deepseek-r1-fp8-tp44")
    assert str(info.value) == (
        "configs: no config has prefix 'deepseek-r1-fp8-tp44' (did you mean 'deepseek-r1-fp8-tp4'?)"
    )
    with pytest.raises(SelectionError, match=r"^configs: name at least one config prefix$"):
        find_configs(fixture, " , ")


def test_custom_points_make_one_job_per_config_on_its_grids_server(fixture: Expanded) -> None:
    configs = find_configs(fixture, "deepseek-r1-fp8-tp4,qwen3-5-397b-a17b-fp8-tp4")
    points = parse_points("2048,128,16,0.5;1024,1024,4,0.8")
    jobs = custom_jobs(fixture, configs, points, None)
    assert [j.id for j in jobs] == [
        "deepseek-r1-fp8-tp4-2048x128-1024x1024",
        "qwen3-5-397b-a17b-fp8-tp4-2048x128-1024x1024",
    ]
    assert [c.id for c in jobs[0].cells] == [
        "deepseek-r1-fp8-tp4-2048-128-16-0.5",
        "deepseek-r1-fp8-tp4-1024-1024-4-0.8",
    ]
    grid_job = fixture.jobs[("deepseek-r1-fp8-tp4", "sglang-atom", "per-server")][0]
    assert jobs[0].server == grid_job.server
