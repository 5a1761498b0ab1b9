"""Properties of expansion, packing, selection and rendering over generated valid catalogs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import commands
from generator.check import drift
from generator.errors import CatalogError, SelectionError
from generator.expand import cells_of
from generator.load import load_catalog
from generator.model import Catalog
from generator.output import dumps
from generator.pack import pack
from generator.render import render_all
from generator.write import write_all
from tests.catalog_gen import CatalogSpec, catalog_specs, small_spec
from tests.conftest import Invoke
from tests.helpers import ROOT, snapshot

FAST = settings(max_examples=20, deadline=None, database=None)
SEEDS = ("0", "4242")

Selector = dict[str, str | None]


def load(spec: CatalogSpec, tmp: pytest.TempPathFactory) -> tuple[Path, Catalog]:
    root = spec.write(tmp.mktemp("catalog"))
    return root, load_catalog(root)


def selections(catalog: Catalog) -> list[Selector]:
    """Every selection a workflow or a user can make: all, suites, groups, presets x modes."""
    out: list[Selector] = [{}]
    for suite in catalog.suites:
        for mode in suite.server_modes:
            out.append({"suite": suite.name, "mode": mode})
    out += [{"group": s.name} for s in catalog.schedules]
    for p in catalog.presets:
        for mode in catalog.suite(p.suite).server_modes:
            out += [
                {"preset": name, "suite": p.suite, "mode": mode} for name in (p.name, *p.aliases)
            ]
    return out


@FAST
@given(catalog_specs())
def test_the_cell_count_is_the_sum_of_every_config_grid_and_each_cell_is_in_one_job(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    _, catalog = load(spec, tmp_path_factory)
    for suite in catalog.suites:
        for mode in suite.server_modes:
            mine = tuple(c for c in catalog.configs if c.suite == suite.name)
            cells = cells_of(catalog, mine, mode)
            per_config = Counter(c.config.prefix for c in cells)
            assert per_config == {c.prefix: spec.cells_per_config[c.prefix] for c in mine}
            ids = [c.id for c in cells]
            assert len(set(ids)) == len(ids)

            jobs = pack(catalog, cells)
            assert len({j.id for j in jobs}) == len(jobs)
            packed = Counter(c.id for j in jobs for c in j.cells)
            assert packed == Counter(ids)
            for job in jobs:
                assert {c.server for c in job.cells} == {job.server}
                assert len({c.config.prefix for c in job.cells}) == 1
                assert job.minutes <= spec.benchmark["estimates"]["max_job_minutes"]
    assert len(cells_of(catalog, catalog.configs)) == spec.cell_count


@FAST
@given(catalog_specs())
def test_every_selection_is_a_subset_of_all_cells_with_unique_cell_and_job_ids(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    _, catalog = load(spec, tmp_path_factory)
    all_ids = {c["id"] for c in commands.cells(catalog)}
    assert len(all_ids) == spec.cell_count
    # The same cell looks the same in every selection that runs it in the same mode.
    reference: dict[tuple[str, str], dict[str, Any]] = {}
    for suite in catalog.suites:
        for mode in suite.server_modes:
            for cell in commands.cells(catalog, suite=suite.name, mode=mode):
                reference[(mode, cell["id"])] = cell

    for sel in selections(catalog):
        cells = commands.cells(catalog, **sel)
        ids = [c["id"] for c in cells]
        assert len(set(ids)) == len(ids), sel
        assert set(ids) <= all_ids, sel
        for cell in cells:
            assert reference[(cell["server_mode"], cell["id"])] == cell, sel

        include = commands.jobs(catalog, **sel)["include"]
        job_ids = [j["id"] for j in include]
        assert len(set(job_ids)) == len(job_ids), sel
        points = Counter(p["id"] for j in include for p in j["points"])
        assert points == Counter(ids), sel


@settings(max_examples=12, deadline=None, database=None)
@given(catalog_specs())
def test_cells_and_jobs_json_are_the_same_on_a_second_load(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    root, catalog = load(spec, tmp_path_factory)
    again = load_catalog(root)
    for sel in selections(catalog):
        assert dumps(commands.cells(again, **sel)) == dumps(commands.cells(catalog, **sel))
        assert dumps(commands.jobs(again, **sel)) == dumps(commands.jobs(catalog, **sel))


@FAST
@given(catalog_specs())
def test_a_second_render_changes_nothing_and_the_first_leaves_no_drift(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    root, catalog = load(spec, tmp_path_factory)
    outputs = render_all(catalog)
    assert sorted(write_all(root, outputs)) == sorted(outputs)
    assert drift(root, outputs) == []
    first = snapshot(root)
    assert first == {rel: text.encode() for rel, text in outputs.items()}

    again = render_all(catalog)
    assert again == outputs
    assert write_all(root, again) == []
    assert snapshot(root) == first
    assert drift(root, again) == []
    assert sorted(p.name for p in root.rglob("*.tmp")) == []
    for rel, text in outputs.items():
        if rel.endswith(".json"):
            assert isinstance(json.loads(text), dict), rel
        elif rel.endswith((".yml", ".yaml")):
            assert isinstance(yaml.safe_load(text), dict), rel


def cli_json(root: Path, seed: str, *args: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    result = subprocess.run(
        [sys.executable, "-m", "generator", "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def assert_seed_independent(root: Path) -> None:
    for args in (("cells",), ("jobs",)):
        first, second = (cli_json(root, seed, *args) for seed in SEEDS)
        assert first == second, args
        assert json.loads(first)


def test_the_shipped_catalogs_print_the_same_json_under_two_hash_seeds(tmp_path: Path) -> None:
    (tmp_path / "catalogs").mkdir()
    for name in ("benchmark.yaml", "accuracy.yaml"):
        (tmp_path / "catalogs" / name).write_bytes((ROOT / "catalogs" / name).read_bytes())
    assert_seed_independent(tmp_path)


@settings(max_examples=2, deadline=None, database=None, derandomize=True)
@given(catalog_specs())
def test_generated_catalogs_print_the_same_json_under_two_hash_seeds(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    root = spec.write(tmp_path_factory.mktemp("seeded"))
    assert_seed_independent(root)


@pytest.mark.parametrize("field", ["family", "precision", "spec"])
@settings(max_examples=6, deadline=None, database=None)
@given(data=st.data())
def test_a_preset_selecting_one_field_value_selects_exactly_the_configs_with_it(
    tmp_path_factory: pytest.TempPathFactory, field: str, data: st.DataObject
) -> None:
    spec = data.draw(catalog_specs())
    configs = spec.benchmark["configs"]
    suite = configs[0]["suite"]
    mine = [c for c in configs if c["suite"] == suite]
    models = spec.benchmark["models"]

    def value(config: dict[str, Any]) -> str:
        if field == "spec":
            return str(config.get("spec", "none"))
        return str(models[config["model"]][field])

    wanted = data.draw(st.sampled_from(sorted({value(c) for c in mine})))
    spec.benchmark["presets"][suite] = [{"name": "picked", "select": {field: wanted}}]
    _, catalog = load(spec, tmp_path_factory)
    cells = commands.cells(catalog, preset="picked", suite=suite)
    expected = {c["prefix"] for c in mine if value(c) == wanted}
    assert {c["config"] for c in cells} == expected
    assert len(cells) == sum(spec.cells_per_config[p] for p in expected)


# Catalogs whose names meet, or that leave a suite out of `presets:`.


def test_a_suite_left_out_of_presets_renders_or_is_refused_with_a_line(
    cli: Invoke, tmp_path: Path
) -> None:
    spec = small_spec(
        {"Suite-A": "a", "Suite-B": "b"},
        [{"prefix": "c0", "suite": "Suite-A"}, {"prefix": "c1", "suite": "Suite-B"}],
    )
    del spec.benchmark["presets"]["Suite-B"]
    result = cli("render", root=spec.write(tmp_path))
    assert result.exit_code in (0, 2), result.stderr
    assert "unexpected" not in result.stderr


def test_a_prefix_that_spells_a_split_job_id_never_shares_that_job_id(tmp_path: Path) -> None:
    spec = small_spec(
        {"Suite-A": "a"},
        [
            {"prefix": "c0", "suite": "Suite-A", "per_pair": {"1024x1024": {"env": [{"X": "1"}]}}},
            {"prefix": "c0-1024x1024", "suite": "Suite-A"},
        ],
    )
    catalog = load_catalog(spec.write(tmp_path))
    with pytest.raises(SelectionError) as info:
        commands.jobs(catalog)
    assert str(info.value) == (
        "job id 'c0-1024x1024' is made by configs 'c0' and 'c0-1024x1024'; rename one prefix"
    )


def test_two_presets_never_share_a_matrix_file(tmp_path: Path) -> None:
    spec = small_spec(
        {"Suite-A": "a", "Suite-AB": "a-b"},
        [{"prefix": "c0", "suite": "Suite-A"}, {"prefix": "c1", "suite": "Suite-AB"}],
    )
    spec.benchmark["presets"] = {
        "Suite-A": [{"name": "b-x", "select": {}}],
        "Suite-AB": [{"name": "x", "select": {}}],
    }
    try:
        catalog = load_catalog(spec.write(tmp_path))
    except CatalogError:
        return  # refusing the catalog is a fix too
    matrices = [rel for rel in render_all(catalog) if rel.startswith(".github/matrices/benchmark/")]
    assert len(matrices) == len(catalog.presets)
