"""`generator.expand.rederive`: a benchmark job entry derived again from the catalogs for the
config, server mode and points it names, or why none of its id can be (NotDerived)."""

from __future__ import annotations

from typing import Any

import pytest

from generator.expand.entries import job_entry
from generator.expand.rederive import NotDerived, job_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded

SHA = "0123456789abcdef0123"


def _entry(fixture: Expanded, job_id: str) -> dict[str, Any]:
    job = next(j for s in fixture.schedules for j in s.default_run.jobs if j.id == job_id)
    return dict(job_entry(fixture.catalog, job, "rocm/atom-dev:handed"))


def test_a_scheduled_job_is_derived_again_as_it_was_handed(fixture: Expanded) -> None:
    entry = _entry(fixture, "deepseek-r1-fp8-tp4")
    assert len(entry["points"]) == 10
    assert job_for(fixture.catalog, entry, SHA) == entry


def test_some_points_of_a_job_make_a_job_named_for_their_pairs(fixture: Expanded) -> None:
    entry = _entry(fixture, "deepseek-r1-fp8-tp4")
    some = {**entry, "points": entry["points"][:1]}
    derived = job_for(fixture.catalog, some, SHA, named=False)
    assert derived["id"] == "deepseek-r1-fp8-tp4-1024x1024"
    assert [p["id"] for p in derived["points"]] == ["deepseek-r1-fp8-tp4-1024-1024-4-0.8"]
    assert derived["image"] == "rocm/atom-dev:handed"
    # Named: the job's one cell names it too.
    cell = {**some, "id": "deepseek-r1-fp8-tp4-1024-1024-4-0.8"}
    assert job_for(fixture.catalog, cell, SHA)["id"] == "deepseek-r1-fp8-tp4-1024-1024-4-0.8"


def test_a_part_of_a_job_keeps_its_name(fixture: Expanded) -> None:
    entry = _entry(fixture, "deepseek-r1-fp8-tp4")
    part = {**entry, "id": "deepseek-r1-fp8-tp4-2of2"}
    assert job_for(fixture.catalog, part, SHA)["id"] == "deepseek-r1-fp8-tp4-2of2"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"config": "nope"},
            "job deepseek-r1-fp8-tp4: no config 'nope' in the catalogs at 0123456789ab",
        ),
        (
            {"server_mode": "sglang-mori"},
            "job deepseek-r1-fp8-tp4: suite SGLang-OOB has no server mode 'sglang-mori'",
        ),
        (
            {"id": "other"},
            (
                "job other: a job of these points is named deepseek-r1-fp8-tp4, a part of it "
                "or its cell"
            ),
        ),
        (
            {"id": "deepseek-r1-fp8-tp4-3of2"},
            (
                "job deepseek-r1-fp8-tp4-3of2: a job of these points is named "
                "deepseek-r1-fp8-tp4, a part of it or its cell"
            ),
        ),
    ],
    ids=["no-config", "no-mode", "another-name", "a-part-past-the-last"],
)
def test_an_entry_the_catalogs_do_not_give_is_refused(
    fixture: Expanded, change: dict[str, str], message: str
) -> None:
    entry = {**_entry(fixture, "deepseek-r1-fp8-tp4"), **change}
    with pytest.raises(NotDerived) as info:
        job_for(fixture.catalog, entry, SHA)
    assert str(info.value) == message
    assert info.value.return_code == 1


def test_points_needing_two_servers_are_no_job(fixture: Expanded) -> None:
    """deepseek-r1-fp4-mesh-tp4 starts another server for 1x1024 (its per-pair extras)."""
    entry = _entry(fixture, "deepseek-r1-fp4-mesh-tp4-8192x1")
    entry["points"] += _entry(fixture, "deepseek-r1-fp4-mesh-tp4-1x1024")["points"]
    with pytest.raises(NotDerived) as info:
        job_for(fixture.catalog, entry, SHA)
    assert str(info.value) == (
        "job deepseek-r1-fp4-mesh-tp4-8192x1: its points need more than one server; a job "
        "starts one"
    )
