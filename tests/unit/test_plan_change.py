"""`generator.plan.change`: the launches and GPU-hours a change adds to the week or removes,
per cron group and per config, against the catalogs at the merge base."""

from __future__ import annotations

import dataclasses

import pytest

from generator.errors import CatalogError
from generator.expand import expand
from generator.plan.change import expanded_at_base, week_change
from tests.helpers import committed_catalogs, edit, git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded


def test_the_same_catalogs_change_nothing(fixture: Expanded) -> None:
    change = week_change(fixture, fixture)
    assert change["kind"] == "week-change"
    assert change["configs"] == []
    assert change["launches_per_week"] == {"base": 53, "head": 53, "change": 0}
    assert change["cells_per_week"] == {"base": 431, "head": 431, "change": 0}
    assert [g["name"] for g in change["groups"]] == [
        "oob-deepseek-non-mtp",
        "oob-deepseek-mtp-qwen",
        "mesh-all",
        "oob-all",
    ]
    assert {g["launches"]["change"] for g in change["groups"]} == {0}
    assert change["groups"][0]["runs_per_week"] == {"base": 2, "head": 2}


def test_a_cron_group_removed_takes_its_launches_and_its_configs_weeks(fixture: Expanded) -> None:
    catalog = fixture.catalog
    head = expand(
        dataclasses.replace(
            catalog, schedules=tuple(s for s in catalog.schedules if s.name != "mesh-all")
        )
    )
    change = week_change(fixture, head)
    [mesh] = [g for g in change["groups"] if g["name"] == "mesh-all"]
    assert mesh["runs_per_week"] == {"base": 1, "head": 0}
    assert mesh["launches"] == {"base": 17, "head": 0, "change": -17}
    assert mesh["gpu_hours"]["head"] == 0
    assert mesh["gpu_hours"]["change"] == -mesh["gpu_hours"]["base"]
    assert change["launches_per_week"] == {"base": 53, "head": 36, "change": -17}
    mesh_configs = [c.prefix for c in catalog.configs if c.suite == "SGLang-Mesh"]
    assert [c["prefix"] for c in change["configs"]] == mesh_configs
    first = change["configs"][0]
    assert (first["launches"], first["groups"]) == ({"base": 1, "head": 0, "change": -1}, {})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The fixture catalogs committed on `main`, checked out on a branch `change`."""
    root = committed_catalogs(tmp_path / "repo")
    git(root, "checkout", "--quiet", "-b", "change")
    return root


def test_the_base_is_the_merge_base_s_catalogs(repo: Path) -> None:
    main = git(repo, "rev-parse", "main").strip()
    edit(repo / "catalogs/benchmark.yaml", "    parallel: {tp: 8}\n", "    parallel: {tp: 4}\n")
    git(repo, "commit", "--quiet", "-am", "head")
    commit, base = expanded_at_base(repo, "main")
    assert commit == main
    assert base.catalog.benchmark_file.endswith("catalogs/benchmark.yaml")
    assert [c.parallel.tp for c in base.catalog.configs][:2] == [4, 8]


def test_base_catalogs_that_do_not_load_are_named_by_the_ref(repo: Path) -> None:
    git(repo, "checkout", "--quiet", "main")
    line = edit(
        repo / "catalogs/benchmark.yaml",
        "    runner: atom-mi355-8gpu-aac-runner\n",
        "    runner: nowhere\n",
    )
    git(repo, "commit", "--quiet", "-am", "broken")
    with pytest.raises(CatalogError) as info:
        expanded_at_base(repo, "main")
    assert str(info.value) == (
        f"main:catalogs/benchmark.yaml:{line}: unknown runner 'nowhere' (the catalogs at main)"
    )
