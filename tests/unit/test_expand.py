"""generator.expand.expand: the catalog's cells, jobs, case runs and selections, computed
once, with an index from every id a user can name."""

from __future__ import annotations

import dataclasses

import pytest

from generator.catalog.catalog_types import PER_CELL, PER_SERVER
from generator.errors import CatalogError
from generator.expand import expand

TYPE_CHECKING = False
if TYPE_CHECKING:
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
