"""Packing cells into jobs: invariants on every selection, splitting, and the legacy shape."""

from __future__ import annotations

import dataclasses
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.cron import runs_per_week
from generator.errors import CatalogError
from generator.estimate import point_minutes, startup_minutes
from generator.expand import cells_of
from generator.load import load_catalog
from generator.model import Catalog
from generator.pack import Job, _greedy, pack, split
from generator.select import selection
from tests.helpers import ROOT


def selections(catalog: Catalog) -> list[tuple[str, dict[str, str], str | None]]:
    """Every cron group and every preset, in each server mode its suite has."""
    out: list[tuple[str, dict[str, str], str | None]] = [
        (f"group {s.name}", {"group": s.name}, s.server_mode) for s in catalog.schedules
    ]
    for p in catalog.presets:
        for mode in catalog.suite(p.suite).server_modes:
            out.append((f"preset {p.name} {mode}", {"preset": p.name, "suite": p.suite}, mode))
    return out


def check_invariants(catalog: Catalog, jobs: list[Job], cells: list[str]) -> None:
    bound = catalog.estimates.max_job_minutes
    packed = [c.id for j in jobs for c in j.cells]
    assert sorted(packed) == sorted(cells)  # every cell in exactly one job
    assert len({j.id for j in jobs}) == len(jobs)
    for job in jobs:
        assert {c.server.fingerprint() for c in job.cells} == {job.server.fingerprint()}
        assert {c.config.prefix for c in job.cells} == {job.config.prefix}
        assert job.minutes <= bound + 1e-9
        # Sweep order: pairs in grid order, each from low to high concurrency.
        order = [p for p, _ in job.config.grid]
        keys = [(order.index(c.pair), c.concurrency) for c in job.cells]
        assert keys == sorted(keys)


def test_every_selection_of_the_shipped_catalog_packs_with_the_invariants(
    catalog: Catalog,
) -> None:
    for _, selectors, mode in selections(catalog):
        sel = selection(catalog, **selectors)
        cells = cells_of(catalog, sel.configs, mode)
        check_invariants(catalog, pack(catalog, cells), [c.id for c in cells])


def test_job_ids_are_the_same_in_a_second_load(catalog: Catalog) -> None:
    again = load_catalog(ROOT)
    first = [j.id for j in pack(catalog, cells_of(catalog, catalog.configs))]
    second = [j.id for j in pack(again, cells_of(again, again.configs))]
    assert first == second
    assert len(first) == 29  # 12 OOB + 17 Mesh jobs (per-pair extras make two of some)


def tighter(catalog: Catalog, bound: float) -> Catalog:
    return dataclasses.replace(
        catalog, estimates=dataclasses.replace(catalog.estimates, max_job_minutes=bound)
    )


@pytest.mark.parametrize("bound", [65, 75, 90, 120])
def test_a_tighter_bound_splits_jobs_into_even_parts_within_it(
    catalog: Catalog, bound: float
) -> None:
    small = tighter(catalog, bound)
    for _, selectors, mode in selections(small):
        sel = selection(small, **selectors)
        cells = cells_of(small, sel.configs, mode)
        jobs = pack(small, cells)
        check_invariants(small, jobs, [c.id for c in cells])
        unsplit = {j.id: j for j in pack(catalog, cells)}
        for base, whole in unsplit.items():
            parts = [j for j in jobs if j.id == base or j.id.startswith(base + "-")]
            parts = [j for j in parts if j.id == base or j.id[len(base) + 1 :][:1].isdigit()]
            if whole.minutes <= bound:
                assert [j.id for j in parts] == [base]
                continue
            k = len(parts)
            assert [j.id for j in parts] == [f"{base}-{n}of{k}" for n in range(1, k + 1)]
            room = bound - whole.startup_minutes
            assert k == len(_greedy([c.minutes for c in whole.cells], room))


def test_the_shipped_bound_splits_nothing_and_a_tight_one_splits_every_oob_job(
    catalog: Catalog,
) -> None:
    oob = selection(catalog, group="oob-all")
    cells = cells_of(catalog, oob.configs)
    assert len(pack(catalog, cells)) == 12
    longest = max(j.minutes for j in pack(catalog, cells))
    assert longest < catalog.estimates.max_job_minutes
    jobs = pack(tighter(catalog, 70), cells)
    assert len(jobs) == 24
    assert {j.id.rsplit("-", 1)[1] for j in jobs} == {"1of2", "2of2"}


def test_a_point_longer_than_the_bound_is_refused_at_its_config(catalog: Catalog) -> None:
    cells = cells_of(catalog, catalog.configs[:1])
    with pytest.raises(CatalogError) as e:
        pack(tighter(catalog, 40), cells)
    assert e.value.loc == catalog.configs[0].loc
    assert e.value.message == (
        "point deepseek-r1-fp8-tp4-8192-1024-64-0.8 is estimated at 11 min; "
        "with 35 min of start-up it exceeds max_job_minutes 40"
    )


def test_per_cell_gives_each_cell_its_own_job_named_by_the_cell(catalog: Catalog) -> None:
    mesh = selection(catalog, group="mesh-all")
    cells = cells_of(catalog, mesh.configs)
    jobs = pack(catalog, cells, per_cell=True)
    assert [j.id for j in jobs] == [c.id for c in cells]
    assert all(len(j.cells) == 1 for j in jobs)


def test_a_per_cell_config_is_per_cell_in_every_selection(catalog: Catalog) -> None:
    first = dataclasses.replace(catalog.configs[0], packing="per-cell")
    changed = dataclasses.replace(catalog, configs=(first, *catalog.configs[1:]))
    jobs = pack(changed, cells_of(changed, changed.configs[:2]))
    assert [len(j.cells) for j in jobs] == [1] * 10 + [10]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(min_value=0.5, max_value=50, allow_nan=False), min_size=1, max_size=40),
    st.floats(min_value=50, max_value=400),
)
def test_split_is_the_fewest_contiguous_parts_and_no_longer_than_greedy(
    points: list[float], room: float
) -> None:
    sizes = split(points, room)
    assert sum(sizes) == len(points) and all(s > 0 for s in sizes)
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    totals = [sum(points[a : a + s]) for a, s in zip(starts, sizes, strict=True)]
    assert all(t <= room + 1e-6 for t in totals)
    greedy = _greedy(points, room)
    assert len(sizes) == len(greedy)
    greedy_starts = [sum(greedy[:i]) for i in range(len(greedy))]
    greedy_max = max(sum(points[a : a + s]) for a, s in zip(greedy_starts, greedy, strict=True))
    assert max(totals) <= greedy_max + 1e-6


def test_split_evens_out_what_greedy_leaves_lopsided() -> None:
    assert _greedy([10, 10, 10, 10, 10], 40) == [4, 1]
    assert split([10, 10, 10, 10, 10], 40) == [3, 2]
    assert split([10, 10, 10], 40) == [3]


def test_the_point_estimate_follows_the_documented_model(catalog: Catalog) -> None:
    # deepseek-r1-fp8-tp4 at 1024x1024, concurrency 64: 640 prompts and 128 warm-ups.
    minutes = point_minutes(
        catalog.estimates.point, isl=1024, osl=1024, concurrency=64, requests=768, gpus=4
    )
    waves = 12
    prefill = 1024 * 64 / (5000 * 4)
    decode = 1024 * (20 + 0.05 * 64) / 1000
    assert minutes == pytest.approx(1 + waves * (prefill + decode) / 60)
    assert math.ceil(minutes) == 7
    cell = next(
        c
        for c in cells_of(catalog, catalog.configs[:1])
        if c.id == "deepseek-r1-fp8-tp4-1024-1024-64-0.8"
    )
    assert cell.minutes == minutes


def test_startup_comes_from_the_config_then_the_model_then_the_size_rule(
    catalog: Catalog,
) -> None:
    est = catalog.estimates
    ds = catalog.config("deepseek-r1-fp8-tp4")
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


@pytest.mark.parametrize(
    ("cron", "runs"),
    [
        ("0 14 * * 1,3", 2),
        ("0 14 * * 2,4", 2),
        ("0 14 * * 5", 1),
        ("0 14 * * 6", 1),
        ("0 16 * * *", 7),
        ("*/30 6-7 * * 1-5", 20),
        # 336 months in the 28 years (1461 weeks) counted.
        ("0 0 1 * *", 336 / 1461),
        # Both day fields: the 1st of a month or a Monday; each month's 1st is a Monday
        # 4 times in 28 years, so 48 days are both.
        ("0 0 1 * 1", (336 + 1461 - 48) / 1461),
    ],
)
def test_runs_per_week_counts_an_average_week(cron: str, runs: float) -> None:
    assert runs_per_week(cron) == pytest.approx(runs)
