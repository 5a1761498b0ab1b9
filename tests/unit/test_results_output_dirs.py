"""generator/results/output_dirs.py: directories the results commands may write."""

from __future__ import annotations

import hashlib
import json

import pytest

from generator.results.output import OutputRefused
from generator.results.output_dirs import MARKER, new_dir, replace_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def build(files: dict[str, str]) -> Callable[[Path], None]:
    def make(new: Path) -> None:
        for name, text in files.items():
            (new / name).parent.mkdir(parents=True, exist_ok=True)
            (new / name).write_text(text)

    return make


def test_a_site_it_built_is_replaced_whole_and_nothing_beside_it_touched(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("keep")
    site = tmp_path / "site"
    replace_dir(site, "results report", build({"a.html": "1", "config/b.html": "2"}))
    replace_dir(site, "results report", build({"a.html": "3", "c.html": "4"}))
    assert sorted(tree(site)) == [MARKER, "a.html", "c.html"]
    assert (site / "a.html").read_text() == "3"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "site"]


def test_a_file_the_site_did_not_have_stops_the_replacement(tmp_path: Path) -> None:
    site = tmp_path / "site"
    replace_dir(site, "results report", build({"a.html": "1"}))
    (site / "notes.txt").write_text("mine")
    before = tree(site)
    with pytest.raises(OutputRefused, match=r"holds notes.txt, which results report did not write"):
        replace_dir(site, "results report", build({"a.html": "2"}))
    assert tree(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_directory_it_did_not_make_is_refused(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("x")
    with pytest.raises(OutputRefused, match=r"is not empty and results report cannot prove it"):
        replace_dir(tmp_path / "docs", "results report", build({"a.html": "1"}))
    assert tree(tmp_path) == {"docs/x.md": b"x"}


def test_a_failed_build_leaves_the_old_site_and_no_debris(tmp_path: Path) -> None:
    site = tmp_path / "site"
    replace_dir(site, "results report", build({"a.html": "1"}))

    def broken(new: Path) -> None:
        (new / "half.html").write_text("half")
        msg = "boom"
        raise RuntimeError(msg)

    with pytest.raises(RuntimeError):
        replace_dir(site, "results report", broken)
    assert sorted(tree(site)) == [MARKER, "a.html"]
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_a_new_directory_is_never_one_that_exists(tmp_path: Path) -> None:
    new_dir(tmp_path / "run", "results admit", build({"r.json": "{}"}))
    with pytest.raises(OutputRefused, match="already exists; results admit never rewrites it"):
        new_dir(tmp_path / "run", "results admit", build({"r.json": "[]"}))
    assert tree(tmp_path) == {"run/r.json": b"{}"}


def _forged_site_marker(site: Path) -> None:
    """A marker that lists a file the command never wrote (as an artifact could carry)."""
    site.mkdir()
    (site / "index.html").write_text("mine")
    digest = hashlib.sha256(b"mine").hexdigest()
    marker = {"schema": "sglang-ci/output/2", "written_by": "results report",
              "directory": [0, 1], "files": {"index.html": digest}}  # fmt: skip
    (site / MARKER).write_text(json.dumps(marker))


def _old_marker(site: Path) -> None:
    site.mkdir()
    (site / "index.html").write_text("mine")
    marker = {
        "schema": "sglang-ci/output/1",
        "written_by": "results report",
        "files": ["index.html"],
    }
    (site / MARKER).write_text(json.dumps(marker))


def _changed_since(site: Path) -> None:
    replace_dir(site, "results report", build({"index.html": "1"}))
    (site / "index.html").write_text("edited by hand")


SITES: dict[str, Callable[[Path], None]] = {
    "forged-marker": _forged_site_marker,
    "marker-without-hashes": _old_marker,
    "a-file-changed-since": _changed_since,
}


@pytest.mark.parametrize("case", SITES, ids=SITES.keys())
def test_a_site_whose_marker_the_command_cannot_prove_is_refused(tmp_path: Path, case: str) -> None:
    site = tmp_path / "site"
    SITES[case](site)
    before = tree(site)
    with pytest.raises(OutputRefused, match="results report"):
        replace_dir(site, "results report", build({"a.html": "2"}))
    assert tree(site) == before
