"""generator.expand.cells: a config's cells in sweep order, named, sampled and estimated."""

from __future__ import annotations

from generator.catalog.catalog_types import Pair
from generator.expand.cells import cell_id, config_cells, grid_points, ratio_text
from generator.expand.estimate import point_minutes
from generator.expand.servers import config_server

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_a_cell_is_named_by_config_pair_concurrency_and_ratio(fixture: Expanded) -> None:
    config = fixture.catalog.configs[0]
    assert cell_id(config, Pair(isl=8192, osl=1024), 64, 0.8) == (
        "deepseek-r1-fp8-tp4-8192-1024-64-0.8"
    )
    assert [ratio_text(r) for r in (1.0, 0.8, 0.25)] == ["1", "0.8", "0.25"]


def test_the_grid_goes_pair_by_pair_from_low_to_high_concurrency(fixture: Expanded) -> None:
    mesh = next(c for c in fixture.catalog.configs if c.prefix == "deepseek-r1-fp8-mesh-dpa8-ep8")
    assert [(str(p), c, r) for p, c, r in grid_points(fixture.catalog, mesh)] == [
        ("8192x1", 512, 1.0),
        ("8192x1", 1024, 1.0),
        ("8192x1", 2048, 1.0),
        ("1x1024", 1024, 1.0),
        ("1x1024", 2048, 1.0),
        ("1x1024", 4096, 1.0),
    ]


def test_cells_take_their_configs_sampling_server_and_estimate(fixture: Expanded) -> None:
    catalog = fixture.catalog
    mesh = next(c for c in catalog.configs if c.prefix == "deepseek-r1-fp8-mesh-dpa8-ep8")
    pair = Pair(isl=8192, osl=1)
    servers = {p: config_server(catalog, mesh, p, "sglang-atom") for p, _ in mesh.grid}
    [cell] = config_cells(catalog, mesh, servers, ((pair, 512, 1.0),))
    # dp_ep_light: 3 prompts and 1 warm-up per unit of concurrency
    assert (cell.id, cell.num_prompts, cell.num_warmups) == (
        "deepseek-r1-fp8-mesh-dpa8-ep8-8192-1-512-1",
        1536,
        512,
    )
    assert cell.server is servers[pair]
    assert cell.minutes == point_minutes(
        catalog.estimates.point, isl=8192, osl=1, concurrency=512, requests=2048, gpus=8
    )
    assert config_cells(catalog, mesh, servers) == fixture.cells[(mesh.prefix, "sglang-atom")]
