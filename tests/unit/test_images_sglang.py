"""`generator.images.sglang`: the SGLang release a pinned image carries (stated in the
catalog, from its tag or from a label) and the select step's check of each server's flags
against it, with the step-summary block. tests/unit/test_images_registry.py reads labels
from a registry."""

from __future__ import annotations

import dataclasses
from typing import Any, cast

import pytest

from generator.catalog.server_types import ImageReleases
from generator.catalog.upstream import SGLANG, index
from generator.errors import SelectionError
from generator.images.sglang import Carried, carried_by, check_matrix, summary_markdown
from generator.images.transport import RegistryError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog
    from generator.core.contract import JobEntry
    from generator.expand.expanded import Expanded
    from generator.imageref.reference import Reference
    from generator.images.matrix import Matrix

REPO = "ghcr.io/example/sglang"
DIGEST = "sha256:" + "c" * 64
LABEL = "org.sglang.version"
NEW_FLAG = "--disable-aiter-allreduce-fusion-in-decode"  # a flag of 0.5.21 to 0.5.23
RELEASES = index(SGLANG).releases


class _Labels:
    """A registry that reads the label LABEL as `value`, or fails."""

    def __init__(self, value: str | None, fails: bool = False) -> None:
        self.value, self.fails = value, fails
        self.asked: list[str] = []

    def tags(self, ref: Reference) -> list[str]:
        return [ref.name]

    def digest(self, ref: Reference, tag: str) -> str:
        return f"{ref.name}:{tag}"

    def labels(self, ref: Reference, digest: str) -> dict[str, str]:
        self.asked.append(f"{ref.name}@{digest}")
        if self.fails:
            msg = "the registry refused: 403"
            raise RegistryError(msg)
        return {LABEL: self.value} if self.value else {}


def _declaring(
    fixture: Expanded,
    *,
    tag: str | None = None,
    label: str | None = None,
    release: str | None = None,
) -> Catalog:
    item = ImageReleases(repository=REPO, releases=RELEASES, tag=tag, label=label, release=release)
    return dataclasses.replace(fixture.catalog, image_releases=(item,))


def _entry(tag: str = "v1", digest: str = DIGEST, **more: Any) -> JobEntry:
    entry = {
        "id": "j",
        "server_mode": "sglang-atom",
        "image": f"{REPO}@{digest}" if digest else f"{REPO}:{tag}",
        "image_requested": f"{REPO}:{tag}",
        "image_digest": digest,
        "server_args": [NEW_FLAG],
        "points": [],
        **more,
    }
    return cast("JobEntry", entry)


def test_a_release_the_catalog_states_is_checked_alone(fixture: Expanded) -> None:
    catalog = _declaring(fixture, release="0.5.22")
    assert carried_by(catalog, _entry(), None) == Carried(
        image=f"{REPO}:v1", release="0.5.22", how="stated in the catalog", checked=("0.5.22",)
    )


def test_a_release_is_read_from_the_tag_under_the_repository_s_pattern(fixture: Expanded) -> None:
    catalog = _declaring(fixture, tag="v{version}-rocm700")
    found = carried_by(catalog, _entry(tag="v0.5.21-rocm700"), None)
    assert (found.release, found.how, found.checked) == (
        "0.5.21",
        "from its tag v0.5.21-rocm700",
        ("0.5.21",),
    )
    other = carried_by(catalog, _entry(tag="latest"), None)
    assert (other.release, other.how, other.checked) == (
        None,
        "its tag names none (v{version}-rocm700)",
        RELEASES,
    )


def test_a_release_is_read_from_a_label_of_the_pinned_image(fixture: Expanded) -> None:
    catalog = _declaring(fixture, label=LABEL)
    client = _Labels("0.5.23")
    found = carried_by(catalog, _entry(), client)
    assert (found.release, found.how) == ("0.5.23", f"from its label {LABEL}")
    assert client.asked == [f"{REPO}@{DIGEST}"]
    missing = carried_by(catalog, _entry(), _Labels(None))
    assert (missing.release, missing.how, missing.checked) == (
        None,
        f"no label {LABEL} read",
        RELEASES,
    )
    unpinned = carried_by(catalog, _entry(digest=""), client)
    assert (unpinned.how, len(client.asked)) == ("not pinned", 1)


def test_a_label_the_registry_will_not_give_stops_the_run(fixture: Expanded) -> None:
    with pytest.raises(SelectionError) as info:
        carried_by(_declaring(fixture, label=LABEL), _entry(), _Labels(None, fails=True))
    assert str(info.value) == (
        f"image '{REPO}:v1': cannot read its label {LABEL}: the registry refused: 403"
    )


def test_an_undeclared_repository_may_carry_any_supported_release(fixture: Expanded) -> None:
    found = carried_by(fixture.catalog, _entry(), None)
    assert found == Carried(
        image=f"{REPO}:v1",
        release=None,
        how="the catalog names no way to know it",
        checked=RELEASES,
    )


def test_a_release_without_a_flag_table_is_not_checked(fixture: Expanded) -> None:
    found = carried_by(_declaring(fixture, release="0.4.0"), _entry(), None)
    assert found == Carried(
        image=f"{REPO}:v1",
        release="0.4.0",
        how=(
            "stated in the catalog; no flag table (SGLang 0.5.9 to 0.5.23): not checked, "
            "make flag-tables"
        ),
        checked=(),
    )


def test_the_first_entry_a_release_refuses_stops_the_run_in_one_line(fixture: Expanded) -> None:
    catalog = _declaring(fixture, tag="v{version}-rocm700")
    ok = _entry(tag="v0.5.21-rocm700", id="fine")
    job = _entry(tag="v0.5.9-rocm700", digest="sha256:" + "d" * 64, id="case-a")
    old = {key: value for key, value in job.items() if key != "points"}  # a case
    with pytest.raises(SelectionError) as info:
        check_matrix(catalog, cast("Matrix[JobEntry]", {"include": [ok, old]}), None)
    assert str(info.value) == (
        f"case case-a (sglang-atom): image '{REPO}:v0.5.9-rocm700' carries SGLang 0.5.9 (from "
        f"its tag v0.5.9-rocm700): SGLang 0.5.9 has no {NEW_FLAG} (it is a flag of 0.5.21 to "
        "0.5.23); no GPU job started"
    )
    with pytest.raises(
        SelectionError, match=r"^job j \(sglang-atom\): .* may carry SGLang 0\.5\.9"
    ):
        check_matrix(fixture.catalog, {"include": [_entry()]}, None)


def test_each_distinct_image_is_looked_at_once(fixture: Expanded) -> None:
    catalog = _declaring(fixture, label=LABEL)
    client = _Labels("0.5.23")
    entries = [_entry(id="a"), _entry(id="b"), _entry(id="c", server_args=[])]
    assert check_matrix(catalog, {"include": entries}, client) == (
        Carried(
            image=f"{REPO}:v1", release="0.5.23", how=f"from its label {LABEL}", checked=("0.5.23",)
        ),
    )
    assert client.asked == [f"{REPO}@{DIGEST}"]


def test_the_summary_lists_each_image_s_release_and_how_it_is_known() -> None:
    assert summary_markdown([]) == ""
    found = [
        Carried(image="a:1", release="0.5.23", how="stated in the catalog", checked=("0.5.23",)),
        Carried(image="b:2", release=None, how="not pinned", checked=RELEASES),
    ]
    assert summary_markdown(found) == (
        "### SGLang releases\n\n| Image | SGLang | Known |\n| --- | --- | --- |\n"
        "| `a:1` | 0.5.23 | stated in the catalog |\n| `b:2` | - | not pinned |\n\n"
    )
