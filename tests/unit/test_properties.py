"""Properties of expansion, packing, selection and rendering over generated valid catalogs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.catalog.catalog_types import PER_CELL, PER_SERVER
from generator.catalog.yamlio import load_data
from generator.expand.entries import cell_entry, job_entry
from generator.expand.query import query
from generator.expand.select import image_for
from generator.jsonio import dumps
from generator.render import render
from generator.render.drift import drift
from generator.render.write import write_all
from tests.catalog_gen import CatalogSpec, catalog_specs, small_spec
from tests.helpers import FIXTURE, ROOT, expanded_at, snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.entries import CellEntry
    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

SEEDS = ("0", "4242")

Selector = dict[str, str | None]


def load(spec: CatalogSpec, tmp: pytest.TempPathFactory) -> tuple[Path, Expanded]:
    root = spec.write(tmp.mktemp("catalog"))
    return root, expanded_at(root)


def selections(expanded: Expanded) -> list[Selector]:
    """Every selection a workflow or a user can make: all, suites, groups, presets x modes."""
    catalog = expanded.catalog
    out: list[Selector] = [{}]
    out += [{"suite": s.name, "mode": mode} for s in catalog.suites for mode in s.server_modes]
    out += [{"group": s.name} for s in catalog.schedules]
    for p in catalog.presets:
        for mode in catalog.suite(p.suite).server_modes:
            out += [
                {"preset": name, "suite": p.suite, "mode": mode} for name in (p.name, *p.aliases)
            ]
    return out


def cells_json(expanded: Expanded, sel: Selector) -> list[CellEntry]:
    """What `sglang-ci cells` prints for the selection."""
    run = query(expanded, **sel).run
    image = image_for(expanded.catalog, run.mode, None)
    return [cell_entry(c, image) for c in run.cells]


def jobs_json(expanded: Expanded, sel: Selector) -> list[dict[str, Any]]:
    """The entries `sglang-ci jobs` prints for the selection."""
    run = query(expanded, **sel).run
    image = image_for(expanded.catalog, run.mode, None)
    return [dict(job_entry(expanded.catalog, j, image)) for j in run.jobs]


def assert_cells_follow_the_grids_and_each_is_in_one_job(
    expanded: Expanded, spec: CatalogSpec
) -> None:
    """Each config has its grid's cells in every mode of its suite, with unique ids; each
    cell is in exactly one job (packed or one per cell) of one config and one server, and no
    job outruns the bound."""
    catalog = expanded.catalog
    bound = spec.benchmark["estimates"]["max_job_minutes"]
    for suite in catalog.suites:
        mine = [c for c in catalog.configs if c.suite == suite.name]
        for mode in suite.server_modes:
            cells = [cell for c in mine for cell in expanded.cells[(c.prefix, mode)]]
            per_config = Counter(c.config.prefix for c in cells)
            assert per_config == {c.prefix: spec.cells_per_config[c.prefix] for c in mine}
            ids = [c.id for c in cells]
            assert len(set(ids)) == len(ids)
            assert {c.server.mode for c in cells} == {mode}

            for packing in (PER_SERVER, PER_CELL):
                jobs = [j for c in mine for j in expanded.jobs[(c.prefix, mode, packing)]]
                assert len({j.id for j in jobs}) == len(jobs)
                assert Counter(c.id for j in jobs for c in j.cells) == Counter(ids)
                for job in jobs:
                    assert {c.server for c in job.cells} == {job.server}
                    assert len({c.config.prefix for c in job.cells}) == 1
                    assert job.minutes <= bound
    assert len(query(expanded).run.cells) == spec.cell_count


def assert_every_selection_runs_known_cells_once(expanded: Expanded, spec: CatalogSpec) -> None:
    """Every selection's cells are cells of the catalog, each once and each as it looks in
    every other selection in the same mode; its jobs have unique ids and run its cells."""
    all_ids = {c["id"] for c in cells_json(expanded, {})}
    assert len(all_ids) == spec.cell_count
    reference: dict[tuple[str, str], CellEntry] = {}
    for suite in expanded.catalog.suites:
        for mode in suite.server_modes:
            for cell in cells_json(expanded, {"suite": suite.name, "mode": mode}):
                reference[(mode, cell["id"])] = cell

    for sel in selections(expanded):
        cells = cells_json(expanded, sel)
        ids = [c["id"] for c in cells]
        assert len(set(ids)) == len(ids), sel
        assert set(ids) <= all_ids, sel
        for cell in cells:
            assert reference[(cell["server_mode"], cell["id"])] == cell, sel

        include = jobs_json(expanded, sel)
        job_ids = [j["id"] for j in include]
        assert len(set(job_ids)) == len(job_ids), sel
        points = Counter(p["id"] for j in include for p in j["points"])
        assert points == Counter(ids), sel


@settings(max_examples=15)
@given(catalog_specs())
def test_every_grid_point_is_a_cell_and_every_selection_runs_each_of_its_cells_once(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    _, expanded = load(spec, tmp_path_factory)
    assert_cells_follow_the_grids_and_each_is_in_one_job(expanded, spec)
    assert_every_selection_runs_known_cells_once(expanded, spec)


@settings(max_examples=6)
@given(catalog_specs())
def test_a_second_load_prints_and_renders_the_same_and_a_render_leaves_no_drift(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    root, expanded = load(spec, tmp_path_factory)
    again = expanded_at(root)
    for sel in selections(expanded):
        assert dumps(cells_json(again, sel)) == dumps(cells_json(expanded, sel))
        assert dumps(jobs_json(again, sel)) == dumps(jobs_json(expanded, sel))

    outputs = render(expanded, root)
    assert sorted(write_all(root, outputs)) == sorted(outputs)
    assert drift(root, outputs) == []
    first = snapshot(root)
    assert first == {rel: text.encode() for rel, text in outputs.items()}

    rendered_again = render(again, root)
    assert rendered_again == outputs
    assert write_all(root, rendered_again) == []
    assert snapshot(root) == first
    assert drift(root, rendered_again) == []
    assert sorted(p.name for p in root.rglob("*.tmp")) == []
    for rel, text in outputs.items():
        if rel.endswith(".json"):
            assert isinstance(json.loads(text), dict), rel
        elif rel.endswith((".yml", ".yaml")):
            assert isinstance(load_data(text), dict), rel


# Run in a fresh interpreter per hash seed: for each root, every cell and job as
# `sglang-ci cells/jobs` print them, every rendered file, the summary and the week's plan.
SEEDED = """
import sys
from pathlib import Path
from generator.catalog import load
from generator.expand import expand
from generator.expand.entries import cell_entry, job_entry
from generator.jsonio import dumps
from generator.plan.week import plan_week
from generator.render import render
from generator.plan.coverage import summary

for root in sys.argv[1:]:
    expanded = expand(load(Path(root)))
    catalog = expanded.catalog
    image = catalog.default_image
    cells = [cell_entry(c, image) for listed in expanded.cells.values() for c in listed]
    jobs = [job_entry(catalog, j, image) for listed in expanded.jobs.values() for j in listed]
    sys.stdout.write(dumps(cells) + dumps(jobs))
    outputs = render(expanded, Path("."))
    sys.stdout.write("".join(f"{path}\\n{text}" for path, text in outputs.items()))
    sys.stdout.write(dumps(summary(expanded)) + dumps(plan_week(expanded)))
"""


def seeded_outputs(roots: list[Path]) -> list[str]:
    """The output of SEEDED for every root, once per hash seed (side by side)."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SEEDED, *map(str, roots)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        for seed in SEEDS
    ]
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        assert stderr == ""
        out.append(stdout)
    return out


@settings(max_examples=1)
@given(st.lists(catalog_specs(), min_size=2, max_size=2))
def test_the_fixture_and_generated_catalogs_give_the_same_output_under_two_hash_seeds(
    tmp_path_factory: pytest.TempPathFactory, specs: list[CatalogSpec]
) -> None:
    roots = [FIXTURE, *(spec.write(tmp_path_factory.mktemp("seeded")) for spec in specs)]
    first, second = seeded_outputs(roots)
    assert first == second
    assert first.count(".github/workflows/benchmark.yml\n") == len(roots)


@settings(max_examples=8)
@given(data=st.data())
def test_a_preset_selecting_one_field_value_selects_exactly_the_configs_with_it(
    tmp_path_factory: pytest.TempPathFactory, data: st.DataObject
) -> None:
    field = data.draw(st.sampled_from(["family", "precision", "spec"]))
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
    _, expanded = load(spec, tmp_path_factory)
    cells = cells_json(expanded, {"preset": "picked", "suite": suite})
    expected = {c["prefix"] for c in mine if value(c) == wanted}
    assert {c["config"] for c in cells} == expected
    assert len(cells) == sum(spec.cells_per_config[p] for p in expected)


# Catalogs whose names meet, that leave a suite out of `presets:`, or that sit at the edge
# of the schema.


@pytest.fixture
def in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Errors name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_suite_left_out_of_presets_renders_its_configs_own_presets(
    cli: Invoke, in_tmp_path: Path
) -> None:
    spec = small_spec(
        {"Suite-A": "a", "Suite-B": "b"},
        [{"prefix": "c0", "suite": "Suite-A"}, {"prefix": "c1", "suite": "Suite-B"}],
    )
    del spec.benchmark["presets"]["Suite-B"]
    result = cli("render", root=spec.write(in_tmp_path))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == "rendered 16 files; 16 changed"
    assert sorted((in_tmp_path / ".github/matrices/benchmark/preset").rglob("*.json")) == [
        in_tmp_path / ".github/matrices/benchmark/preset/a/plain/c0.json",
        in_tmp_path / ".github/matrices/benchmark/preset/b/plain/c1.json",
    ]


def test_two_presets_never_share_a_matrix_file(tmp_path: Path) -> None:
    spec = small_spec(
        {"Suite-A": "a", "Suite-AB": "a-b"},
        [{"prefix": "c0", "suite": "Suite-A"}, {"prefix": "c1", "suite": "Suite-AB"}],
    )
    spec.benchmark["presets"] = {
        "Suite-A": [{"name": "b-x", "select": {}}],
        "Suite-AB": [{"name": "x", "select": {}}],
    }
    expanded = expanded_at(spec.write(tmp_path))
    matrices = [
        rel for rel in render(expanded, tmp_path) if rel.startswith(".github/matrices/benchmark/")
    ]
    assert matrices == [
        ".github/matrices/benchmark/preset/a-b/plain/c1.json",
        ".github/matrices/benchmark/preset/a-b/plain/x.json",
        ".github/matrices/benchmark/preset/a/plain/b-x.json",
        ".github/matrices/benchmark/preset/a/plain/c0.json",
    ]
    assert len(matrices) == sum(len(p.runs) for p in expanded.presets)


def test_an_lm_eval_case_without_model_args_is_refused_with_a_line(
    cli: Invoke, in_tmp_path: Path
) -> None:
    spec = small_spec({"Suite-A": "a"}, [{"prefix": "c0", "suite": "Suite-A"}])
    del spec.accuracy["suites"]["gsm"]["evaluator"]["model_args"]
    result = cli("explain", "acc-case", root=spec.write(in_tmp_path))
    assert result.exit_code == 2
    assert result.stderr.startswith("error: catalogs/accuracy.yaml:"), result.stderr
    assert result.stderr.endswith(": suites.gsm.evaluator: 'model_args' is required\n")
