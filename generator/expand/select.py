"""A selection's server mode, image and run: what a cron group, a preset or a suite runs in
which mode, assembled from what `expand` computed."""

from __future__ import annotations

import fnmatch

from generator.catalog.catalog_types import PER_CELL
from generator.errors import SelectionError
from generator.expand.cost import shape
from generator.expand.expanded import Run
from generator.imageref.allowed import check_allowed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from generator.catalog.catalog_types import Catalog, Config
    from generator.expand.expanded import Cell, Job


def default_mode(catalog: Catalog, config: Config) -> str:
    return catalog.suite(config.suite).server_modes[0]


def assemble(
    catalog: Catalog,
    cells: Mapping[tuple[str, str], tuple[Cell, ...]],
    jobs: Mapping[tuple[str, str, str], tuple[Job, ...]],
    configs: Iterable[Config],
    mode: str | None,
    packing: str,
) -> Run:
    """The run of `configs` in `mode` (None: each config's suite's first mode) from the
    cells and jobs computed per config."""
    all_cells: list[Cell] = []
    packed: list[Job] = []
    per_cell: list[Job] = []
    for c in configs:
        m = mode or default_mode(catalog, c)
        all_cells += cells[(c.prefix, m)]
        packed += jobs[(c.prefix, m, packing)]
        per_cell += jobs[(c.prefix, m, PER_CELL)]
    runners = {r.label: r for r in catalog.runners}
    return Run(
        mode=mode,
        cells=tuple(all_cells),
        jobs=tuple(packed),
        per_cell_jobs=tuple(per_cell),
        packed=shape(runners, packed),
        per_cell=shape(runners, per_cell),
    )


def check_mode(
    catalog: Catalog, suites: Iterable[str], mode: str | None, image: str | None
) -> None:
    """Refuse a server mode one of the suites cannot run, or an image the mode refuses."""
    for name in sorted(set(suites)):
        suite = catalog.suite(name)
        chosen = mode or suite.server_modes[0]
        if chosen not in suite.server_modes:
            msg = (
                f"suite {suite.name} has no server mode '{chosen}' "
                f"(it has: {', '.join(suite.server_modes)})"
            )
            raise SelectionError(msg)
        if image is not None:
            check_image(catalog, chosen, image)


def check_image(catalog: Catalog, mode: str, image: str) -> None:
    """Refuse an image (a reference or a nightly pattern) that server mode `mode` may not
    run: one outside the repositories it declares, or one its image pattern refuses."""
    declared = catalog.mode(mode)
    check_allowed(image, mode, declared.image_repositories)
    pattern = declared.image_pattern
    if pattern and not fnmatch.fnmatchcase(image, pattern):
        msg = f"server mode '{mode}' runs only on {pattern} images, not '{image}'"
        raise SelectionError(msg)


def image_for(catalog: Catalog, mode: str | None, image: str | None) -> str:
    """The image a job runs in: the override, else the default; empty when the mode
    needs an image of its own (the dispatch must then name one)."""
    if image is not None:
        return image
    if mode is not None and catalog.mode(mode).image_pattern:
        return ""
    return catalog.default_image
