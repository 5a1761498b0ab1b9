"""generator.expand.pack: cells into jobs, invariants on every selection, and splitting."""

from __future__ import annotations

import dataclasses
import hashlib
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.catalog.catalog_types import PER_CELL, Catalog
from generator.errors import CatalogError
from generator.expand import expand
from generator.expand.custom import custom_jobs, find_configs, parse_points
from generator.expand.ids import MAX_ID_CHARS, bounded
from generator.expand.pack import pack, split
from generator.expand.query import query
from tests.helpers import FIXTURE, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded, Job, Run


def runs(expanded: Expanded) -> list[tuple[str, Run]]:
    """Every cron group and every preset, in each server mode its suite has."""
    return [
        (f"{s.kind} {s.name}" + (f" {mode}" if mode else ""), run)
        for s in (*expanded.schedules, *expanded.presets)
        for mode, run in s.runs.items()
    ]


def check_invariants(catalog: Catalog, jobs: tuple[Job, ...], cells: list[str]) -> None:
    bound = catalog.estimates.max_job_minutes
    packed = [c.id for j in jobs for c in j.cells]
    assert sorted(packed) == sorted(cells)  # every cell in exactly one job
    assert len({j.id for j in jobs}) == len(jobs)
    for job in jobs:
        assert {c.server for c in job.cells} == {job.server}
        assert {c.config.prefix for c in job.cells} == {job.config.prefix}
        assert job.minutes <= bound + 1e-9
        # Sweep order: pairs in grid order, each from low to high concurrency.
        order = [p for p, _ in job.config.grid]
        keys = [(order.index(c.pair), c.concurrency) for c in job.cells]
        assert keys == sorted(keys)


def test_every_selection_of_the_fixture_catalog_packs_with_the_invariants(
    fixture: Expanded,
) -> None:
    # 4 cron groups in their suites' first modes; 35 presets, the 18 Mesh ones in two modes.
    assert len(runs(fixture)) == 57
    for _, run in runs(fixture):
        check_invariants(fixture.catalog, run.jobs, [c.id for c in run.cells])
        check_invariants(fixture.catalog, run.per_cell_jobs, [c.id for c in run.cells])


def test_job_ids_are_the_same_in_a_second_load(fixture: Expanded) -> None:
    again = expanded_at(FIXTURE)
    first = [j.id for j in query(fixture).run.jobs]
    assert [j.id for j in query(again).run.jobs] == first
    assert len(first) == 29  # 12 OOB + 17 Mesh jobs (per-pair extras make two of some)


def prefix_sums(points: list[float]) -> list[float]:
    sums = [0.0]
    for p in points:
        sums.append(sums[-1] + p)
    return sums


def fewest_parts(points: list[float], room: float) -> int:
    """The fewest parts of consecutive points, each summing to at most `room`: a dynamic
    program over every cut, independent of the packer's own search."""
    sums = prefix_sums(points)
    best = [0] + [len(points) + 1] * len(points)  # best[i]: parts for the first i points
    for end in range(1, len(points) + 1):
        for start in range(end):
            if sums[end] - sums[start] <= room + 1e-9:
                best[end] = min(best[end], best[start] + 1)
    return best[-1]


def least_longest_part(points: list[float], parts: int) -> float:
    """The smallest possible longest part when `points` are cut into `parts` consecutive
    parts (a dynamic program over every cut)."""
    sums = prefix_sums(points)
    n = len(points)
    # longest[i]: the least longest part of the first i points in the parts so far
    longest = [0.0] + [float("inf")] * n
    for _ in range(parts):
        longest = [float("inf")] + [
            min(max(longest[start], sums[end] - sums[start]) for start in range(end))
            for end in range(1, n + 1)
        ]
    return longest[n]


def tighter(catalog: Catalog, bound: float) -> Catalog:
    return dataclasses.replace(
        catalog, estimates=dataclasses.replace(catalog.estimates, max_job_minutes=bound)
    )


# Jobs longer than the bound, over every selection of the fixture (the longest: 99.9 min).
@pytest.mark.parametrize(("bound", "split_jobs"), [(65, 213), (75, 158), (90, 60), (99, 24)])
def test_a_tighter_bound_splits_jobs_into_even_parts_within_it(
    fixture: Expanded, bound: float, split_jobs: int
) -> None:
    small = expand(tighter(fixture.catalog, bound))
    unsplit_runs = dict(runs(fixture))
    split = 0
    for what, run in runs(small):
        check_invariants(small.catalog, run.jobs, [c.id for c in run.cells])
        for base, whole in {j.id: j for j in unsplit_runs[what].jobs}.items():
            parts = [j for j in run.jobs if j.id == base or j.id.startswith(base + "-")]
            parts = [j for j in parts if j.id == base or j.id[len(base) + 1 :][:1].isdigit()]
            if whole.minutes <= bound:
                assert [j.id for j in parts] == [base]
                continue
            k = len(parts)
            split += 1
            assert [j.id for j in parts] == [f"{base}-{n}of{k}" for n in range(1, k + 1)]
            assert [c for j in parts for c in j.cells] == list(whole.cells)
            room = bound - whole.startup_minutes
            assert k == fewest_parts([c.minutes for c in whole.cells], room)
    assert split == split_jobs


def test_the_fixture_bound_splits_nothing_and_a_tight_one_splits_every_oob_job(
    fixture: Expanded,
) -> None:
    [oob] = [s for s in fixture.schedules if s.name == "oob-all"]
    jobs = oob.default_run.jobs
    assert len(jobs) == 12
    assert max(j.minutes for j in jobs) < fixture.catalog.estimates.max_job_minutes
    [tight] = [s for s in expand(tighter(fixture.catalog, 70)).schedules if s.name == "oob-all"]
    assert len(tight.default_run.jobs) == 24
    assert {j.id.rsplit("-", 1)[1] for j in tight.default_run.jobs} == {"1of2", "2of2"}


def test_a_point_longer_than_the_bound_is_refused_at_its_config(fixture: Expanded) -> None:
    first = fixture.catalog.configs[0]
    cells = fixture.cells[(first.prefix, "sglang-atom")]
    with pytest.raises(CatalogError) as e:
        pack(tighter(fixture.catalog, 40), first, cells, per_cell=False)
    assert e.value.loc == first.loc
    assert e.value.message == (
        "point deepseek-r1-fp8-tp4-8192-1024-64-0.8 is estimated at 11 min; "
        "with 35 min of start-up it exceeds max_job_minutes 40"
    )


def test_per_cell_gives_each_cell_its_own_job_named_by_the_cell(fixture: Expanded) -> None:
    [mesh] = [s for s in fixture.schedules if s.name == "mesh-all"]
    run = mesh.default_run
    assert len(run.cells) == 71
    assert [j.id for j in run.per_cell_jobs] == [c.id for c in run.cells]
    assert [j.cells for j in run.per_cell_jobs] == [(c,) for c in run.cells]


def test_a_per_cell_config_is_per_cell_in_every_selection(fixture: Expanded) -> None:
    catalog = fixture.catalog
    first = dataclasses.replace(catalog.configs[0], packing=PER_CELL)
    changed = expand(dataclasses.replace(catalog, configs=(first, *catalog.configs[1:])))
    selecting = [(w, run) for w, run in runs(changed) if any(c.config is first for c in run.cells)]
    assert [what for what, _ in selecting] == [
        "schedule oob-deepseek-non-mtp",
        "schedule oob-all",
        "preset deepseek-r1-fp8-tp4 sglang-atom",
        "preset all-deepseek sglang-atom",
        "preset all-deepseek-non-mtp sglang-atom",
        "preset all-oob sglang-atom",
    ]
    for _, run in selecting:
        mine = [j for j in run.jobs if j.config is first]
        assert [j.id for j in mine] == [c.id for c in run.cells if c.config is first]
        assert len(mine) == 10
    [oob] = [s for s in changed.schedules if s.name == "oob-all"]
    assert [len(j.cells) for j in oob.default_run.jobs[:11]] == [1] * 10 + [10]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(min_value=0.5, max_value=50, allow_nan=False), min_size=1, max_size=40),
    st.floats(min_value=50, max_value=400),
)
def test_split_is_the_fewest_contiguous_parts_with_the_least_longest_part(
    points: list[float], room: float
) -> None:
    sizes = split(points, room)
    assert sum(sizes) == len(points)
    assert all(s > 0 for s in sizes)
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    totals = [sum(points[a : a + s]) for a, s in zip(starts, sizes, strict=True)]
    assert all(t <= room + 1e-6 for t in totals)
    assert len(sizes) == fewest_parts(points, room)
    # As even as the fewest parts allow, within the second the packer's search stops at.
    assert max(totals) <= least_longest_part(points, len(sizes)) + 1 / 60 + 1e-6


def test_split_evens_out_what_filling_each_part_first_leaves_lopsided() -> None:
    # Filling each part before the next would give 40 + 10.
    assert split([10, 10, 10, 10, 10], 40) == [3, 2]
    assert split([10, 10, 10], 40) == [3]
    assert split([5, 30, 5, 30, 5], 40) == [3, 2]


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(min_value=0.5, max_value=5, allow_nan=False), min_size=1, max_size=60),
    st.integers(min_value=1, max_value=8),
)
def test_split_never_puts_more_than_the_most_points_in_a_part(
    points: list[float], most: int
) -> None:
    sizes = split(points, 1000.0, most=most)
    assert sum(sizes) == len(points)
    assert max(sizes) <= most
    assert len(sizes) == math.ceil(len(points) / most)


def test_a_sweep_of_more_points_than_a_job_may_hold_is_split_evenly() -> None:
    assert split([0.5] * 600, 1000.0) == [200, 200, 200]


def test_thirty_custom_pairs_make_a_job_id_of_bounded_length(fixture: Expanded) -> None:
    configs = find_configs(fixture, "deepseek-r1-fp8-tp4")
    text = ";".join(f"{1000 + i},{1000 + i},4,0.8" for i in range(30))
    [job] = custom_jobs(fixture, configs, parse_points(text), None)
    whole = "deepseek-r1-fp8-tp4-" + "-".join(f"{1000 + i}x{1000 + i}" for i in range(30))
    assert len(job.id) == MAX_ID_CHARS
    assert job.id == bounded(whole)
    assert job.id.startswith(whole[:100])
    assert job.id[-13:] == "-" + hashlib.sha256(whole.encode()).hexdigest()[:12]
    assert [c.id for c in job.cells][:1] == ["deepseek-r1-fp8-tp4-1000-1000-4-0.8"]
