"""generator/results/output.py: files the results commands may write."""

from __future__ import annotations

import hashlib
import json

import pytest

from generator.results.output import JSON, MARKDOWN, OutputRefused, owner_marker, write_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

SUMMARIZE = "results summarize"


def test_a_json_file_is_replaced_only_when_the_same_command_wrote_it(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    write_file(out, '{"schema": "sglang-ci/verdicts/1"}\n', JSON, "results compare")
    write_file(out, '{"schema": "sglang-ci/verdicts/1", "n": 2}\n', JSON, "results compare")
    assert json.loads(out.read_text())["n"] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [".v.json.sglang-ci-owner.json", "v.json"]
    with pytest.raises(OutputRefused, match="results summarize cannot prove it wrote it"):
        write_file(out, "{}", JSON, SUMMARIZE)
    mine = tmp_path / "mine.json"
    mine.write_text('{"a": 1}')
    with pytest.raises(OutputRefused, match="exists and results summarize cannot prove it wrote"):
        write_file(mine, "{}", JSON, SUMMARIZE)
    assert mine.read_text() == '{"a": 1}'


def _record(path: Path) -> bytes:
    path.write_text('{"schema": "sglang-ci/record/1", "kind": "point"}')
    return path.read_bytes()


def _manifest(path: Path) -> bytes:
    path.write_text('{"schema": "sglang-ci/manifest/1", "name": "run"}')
    return path.read_bytes()


def _forged_marker(path: Path) -> bytes:
    """A marker that came with the file (an artifact, a checkout): right command, right
    hash, but another file's inode."""
    path.write_text('{"schema": "sglang-ci/summary/1"}')
    data = path.read_bytes()
    owner_marker(path).write_text(
        json.dumps(
            {
                "schema": "sglang-ci/owner/1",
                "written_by": SUMMARIZE,
                "file": path.name,
                "sha256": hashlib.sha256(data).hexdigest(),
                "identity": [0, 1],
            }
        )
    )
    return data


def _edited_after(path: Path) -> bytes:
    write_file(path, '{"schema": "sglang-ci/summary/1"}\n', JSON, SUMMARIZE)
    path.write_text('{"schema": "sglang-ci/summary/1", "edited": true}\n')
    return path.read_bytes()


def _markdown_shaped(path: Path) -> bytes:
    path.write_text("<!-- written by sglang-ci results -->\n# notes kept by hand\n")
    return path.read_bytes()


# Files shaped like an output (a `sglang-ci/` schema, the Markdown mark) that the command
# must never replace.
SHAPED: dict[str, tuple[str, Callable[[Path], bytes]]] = {
    "a-record": ("run/p.json", _record),
    "a-history-manifest": ("history/run/manifest.json", _manifest),
    "a-forged-owner-marker": ("s.json", _forged_marker),
    "edited-after-it-was-written": ("s.json", _edited_after),
    "markdown-with-the-mark": ("notes.md", _markdown_shaped),
}


@pytest.mark.parametrize("case", SHAPED, ids=SHAPED.keys())
def test_a_file_merely_shaped_like_an_output_is_refused(tmp_path: Path, case: str) -> None:
    rel, make = SHAPED[case]
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    before = make(path)
    kind = MARKDOWN if path.suffix == ".md" else JSON
    with pytest.raises(OutputRefused, match="cannot prove it wrote it"):
        write_file(path, "{}", kind, SUMMARIZE)
    assert path.read_bytes() == before


def test_markdown_carries_its_mark_and_a_foreign_markdown_file_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "s.md"
    write_file(out, "# one\n", MARKDOWN, SUMMARIZE)
    write_file(out, "# two\n", MARKDOWN, SUMMARIZE)
    assert out.read_text() == "<!-- written by sglang-ci results -->\n# two\n"
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    with pytest.raises(OutputRefused):
        write_file(notes, "x", MARKDOWN, SUMMARIZE)
    assert notes.read_text() == "# my notes\n"


@pytest.mark.parametrize(("name", "kind"), [("v.md", JSON), ("v.json", MARKDOWN), ("v", JSON)])
def test_the_file_name_says_the_format(tmp_path: Path, name: str, kind: str) -> None:
    with pytest.raises(OutputRefused, match="output is written to a"):
        write_file(tmp_path / name, "{}", kind, SUMMARIZE)
    assert list(tmp_path.iterdir()) == []
