"""Jobs packed per config are the jobs `pack` makes of a whole selection."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings

from generator.expand import cells_of
from generator.jobset import jobs_of
from generator.load import load_catalog
from generator.model import Catalog
from generator.pack import Job, pack
from tests.catalog_gen import CatalogSpec, catalog_specs


def shown(jobs: list[Job]) -> list[tuple[str, object, list[str]]]:
    return [(j.id, j.server, [c.id for c in j.cells]) for j in jobs]


def assert_same_jobs(catalog: Catalog) -> None:
    selections = [catalog.configs, catalog.configs[::-1], catalog.configs[1:]]
    selections += [(c,) for c in catalog.configs]
    for configs in selections:
        modes = {m for c in configs for m in catalog.suite(c.suite).server_modes}
        for mode in [None, *sorted(modes)]:
            if mode and any(mode not in catalog.suite(c.suite).server_modes for c in configs):
                continue
            for per_cell in (False, True):
                expected = pack(catalog, cells_of(catalog, configs, mode), per_cell=per_cell)
                found = jobs_of(catalog, configs, mode, per_cell=per_cell)
                assert shown(found) == shown(expected)


@settings(max_examples=25, deadline=None, database=None)
@given(catalog_specs())
def test_jobs_packed_per_config_are_the_selection_s_jobs(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    assert_same_jobs(load_catalog(spec.write(tmp_path_factory.mktemp("catalog"))))


def test_configs_sharing_a_prefix_are_packed_as_one_selection(catalog: Catalog) -> None:
    twin = dataclasses.replace(catalog.configs[1], prefix=catalog.configs[0].prefix)
    doubled = dataclasses.replace(catalog, configs=(catalog.configs[0], twin))
    assert_same_jobs(doubled)
