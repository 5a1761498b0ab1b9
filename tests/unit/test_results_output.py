"""generator/results/output.py: files and directories the results commands may write."""

from __future__ import annotations

import json

import pytest

from generator.results.output import (
    JSON,
    MARKDOWN,
    MARKER,
    OutputRefused,
    new_dir,
    replace_dir,
    write_file,
)

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


def test_a_json_file_is_replaced_only_when_sglang_ci_wrote_it(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    write_file(out, '{"schema": "sglang-ci/verdicts/1"}\n', JSON)
    write_file(out, '{"schema": "sglang-ci/verdicts/1", "n": 2}\n', JSON)
    assert json.loads(out.read_text())["n"] == 2
    mine = tmp_path / "mine.json"
    mine.write_text('{"a": 1}')
    with pytest.raises(OutputRefused, match="exists and was not written by sglang-ci"):
        write_file(mine, "{}", JSON)
    assert mine.read_text() == '{"a": 1}'


def test_markdown_carries_its_mark_and_a_foreign_markdown_file_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "s.md"
    write_file(out, "# one\n", MARKDOWN)
    write_file(out, "# two\n", MARKDOWN)
    assert out.read_text() == "<!-- written by sglang-ci results -->\n# two\n"
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    with pytest.raises(OutputRefused):
        write_file(notes, "x", MARKDOWN)
    assert notes.read_text() == "# my notes\n"


@pytest.mark.parametrize(("name", "kind"), [("v.md", JSON), ("v.json", MARKDOWN), ("v", JSON)])
def test_the_file_name_says_the_format(tmp_path: Path, name: str, kind: str) -> None:
    with pytest.raises(OutputRefused, match="output is written to a"):
        write_file(tmp_path / name, "{}", kind)
    assert list(tmp_path.iterdir()) == []


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
    with pytest.raises(OutputRefused, match=r"holds notes.txt, which results report did not"):
        replace_dir(site, "results report", build({"a.html": "2"}))
    assert tree(site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


def test_a_directory_it_did_not_make_is_refused(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text("x")
    with pytest.raises(OutputRefused, match=r"is not empty and was not made by results report"):
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
