"""generator.expand.expand: the catalog's cells, jobs, case runs and selections, computed
once, with an index from every id a user can name."""

from __future__ import annotations

import dataclasses

import pytest

from generator.catalog import BENCHMARK
from generator.catalog.catalog_types import PER_CELL, PER_SERVER
from generator.errors import CatalogError
from generator.expand import expand
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded


def test_every_config_has_cells_and_both_packings_in_each_mode_of_its_suite(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    assert len(fixture.cells) == 12 + 10 * 2  # OOB configs in one mode, Mesh ones in two
    for config in catalog.configs:
        for mode in catalog.suite(config.suite).server_modes:
            cells = fixture.cells[(config.prefix, mode)]
            assert [c.id for j in fixture.jobs[(config.prefix, mode, PER_SERVER)]
                    for c in j.cells] == [c.id for c in cells]  # fmt: skip
            assert [j.id for j in fixture.jobs[(config.prefix, mode, PER_CELL)]] == [
                c.id for c in cells
            ]
    assert sum(len(c) for (_, mode), c in fixture.cells.items() if mode != "sglang-mori") == 191


def test_a_case_that_pins_images_runs_once_per_image(fixture: Expanded) -> None:
    runs = [r for r in fixture.case_runs if r.case.id == "deepseek-r1-mxfp4-tp4-mtp"]
    assert [(r.id, r.name) for r in runs] == [
        ("deepseek-r1-mxfp4-tp4-mtp-rocm700", "DeepSeek-R1-MXFP4 TP4 MTP (rocm700)"),
        ("deepseek-r1-mxfp4-tp4-mtp-rocm720", "DeepSeek-R1-MXFP4 TP4 MTP (rocm720)"),
    ]
    assert runs[0].server == runs[1].server  # one server, two images
    plain = [r for r in fixture.case_runs if r.case.id == "deepseek-r1-fp8-tp4"]
    assert [(r.id, r.image) for r in plain] == [
        ("deepseek-r1-fp8-tp4", "rocm/atom-dev:sglang-latest")
    ]


def test_the_index_names_each_kind_an_id_can_be(fixture: Expanded) -> None:
    kinds = [t.kind for t in fixture.index["deepseek-r1-fp8-tp4"]]
    assert kinds == ["config", "job", "case", "preset"]
    assert [t.kind for t in fixture.index["mesh-all"]] == ["group"]
    assert [t.kind for t in fixture.index["all"]] == ["preset"]  # ds-all's alias
    assert [t.kind for t in fixture.index["DeepSeek-R1-MXFP4 TP4 MTP"]] == ["case"]
    assert [t.kind for t in fixture.index["deepseek-r1-fp8-tp4-1024-1024-4-0.8"]] == ["cell"]


def test_two_configs_that_would_make_one_job_id_are_refused(fixture: Expanded) -> None:
    # A config whose prefix is another config's job id (its prefix and a pair suffix).
    catalog = fixture.catalog
    mesh = next(c for c in catalog.configs if c.prefix == "deepseek-r1-fp8-mesh-dpa8-ep8")
    clash = dataclasses.replace(
        catalog.configs[0], prefix="deepseek-r1-fp8-mesh-dpa8-ep8-8192x1", grid=mesh.grid[1:]
    )
    with pytest.raises(CatalogError) as info:
        expand(dataclasses.replace(catalog, configs=(*catalog.configs, clash)))
    assert str(info.value) == (
        f"{clash.loc}: job id 'deepseek-r1-fp8-mesh-dpa8-ep8-8192x1' is made by config "
        f"'deepseek-r1-fp8-mesh-dpa8-ep8' (line {mesh.loc.line}) and by config "
        "'deepseek-r1-fp8-mesh-dpa8-ep8-8192x1'; rename one prefix"
    )


def test_a_cron_group_that_selects_nothing_is_refused_at_its_selector(tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(
        root / BENCHMARK,
        "    select: {suite: SGLang-Mesh}\n",
        "    select: {suite: SGLang-Mesh, family: qwen}\n",
    )
    with pytest.raises(CatalogError) as info:
        expanded_at(root)
    assert str(info.value) == f"{root / BENCHMARK}:{line}: cron group 'mesh-all' selects no config"
