"""Nightly patterns: whole-tag matches, calendar dates, and the version order."""

from __future__ import annotations

from datetime import date

import pytest

from generator.core.versions import version_key
from generator.imageref.pattern import Nightly
from generator.imageref.reference import parse_reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.imageref.pattern import TagPattern


def pattern(tag: str) -> TagPattern:
    found = parse_reference(f"rocm/sgl-dev:{tag}").pattern
    assert found is not None
    return found


def test_a_pattern_matches_a_whole_tag_and_reads_its_version_and_date() -> None:
    p = pattern("{version}-rocm720-mi35x-{date}")
    assert p.match("v0.5.8.post1-rocm720-mi35x-20260211") == Nightly(
        tag="v0.5.8.post1-rocm720-mi35x-20260211", version="v0.5.8.post1", date=date(2026, 2, 11)
    )
    assert p.match("v0.5.8.post1-rocm720-mi35x-20260211-preview") is None
    assert p.match("x-v0.5.8-rocm720-mi35x-20260211") is None
    assert p.match("v0.5.8-rocm700-mi35x-20260211") is None


def test_a_preview_needs_a_pattern_of_its_own() -> None:
    p = pattern("{version}-rocm720-mi35x-{date}-preview")
    found = p.match("v0.5.8.post1-rocm720-mi35x-20260211-preview")
    assert found is not None
    assert found.version == "v0.5.8.post1"


@pytest.mark.parametrize("day", ["20260230", "20261301", "20260000", "2026021", "202602111"])
def test_a_date_is_a_calendar_date_of_eight_digits(day: str) -> None:
    assert pattern("{version}-nightly-{date}").match(f"v1-nightly-{day}") is None


def test_literal_dots_are_literal() -> None:
    p = pattern("{version}-r7.2-{date}")
    assert p.match("v1-r7.2-20260101") is not None
    assert p.match("v1-r702-20260101") is None


def test_a_pattern_without_version_matches_on_the_date_alone() -> None:
    found = pattern("nightly-{date}").match("nightly-20261201")
    assert found == Nightly(tag="nightly-20261201", version="", date=date(2026, 12, 1))


@pytest.mark.parametrize(
    "ascending",
    [
        ["v0.5.9", "v0.5.10"],
        ["v0.5.8", "v0.5.8.post1", "v0.5.8.post2", "v0.5.9"],
        ["v0.5.9.dev1", "v0.5.9a1", "v0.5.9b2", "v0.5.9rc1", "v0.5.9rc2", "v0.5.9"],
        ["v0.5.9", "v0.5.9.post1", "v0.5.9.1"],
        ["0.5.9", "v0.5.10"],
        ["v0.5.10rc1", "v0.5.10", "v0.5.10.post1"],
    ],
)
def test_versions_order_by_number_with_pre_releases_below_and_post_releases_above(
    ascending: list[str],
) -> None:
    descending = ascending[::-1]
    assert sorted(descending, key=version_key) == ascending


def test_the_newest_nightly_is_the_latest_date_then_the_highest_version() -> None:
    p = pattern("{version}-rocm720-mi35x-{date}")
    tags = ["v0.5.10-rocm720-mi35x-20261128", "v0.5.9-rocm720-mi35x-20261129"]
    tags += ["v0.5.11-rocm720-mi35x-20261129", "v0.5.11rc1-rocm720-mi35x-20261129"]
    nightlies = [n for n in map(p.match, tags) if n is not None]
    assert max(nightlies, key=lambda n: n.key).tag == "v0.5.11-rocm720-mi35x-20261129"
