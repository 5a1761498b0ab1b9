"""Bad catalogs: one line naming file and line, exit 2, and no generated file touched."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from generator.catalog.yamlio import load_data
from tests.conftest import Invoke
from tests.helpers import ROOT, snapshot

CASES = sorted((ROOT / "tests/example-files/negative").glob("*.yaml"))


@pytest.fixture
def root(rendered_fixture: Path, tmp_path: Path) -> Path:
    """A copy of the fixture catalogs and their generated files."""
    return Path(shutil.copytree(rendered_fixture, tmp_path / "repo"))


def apply(root: Path, case: dict[str, Any]) -> int:
    """Write the broken catalog; return the line the error must name."""
    path = root / "catalogs" / f"{case['file']}.yaml"
    if "content" in case:
        path.write_text(case["content"])
        return int(case["line"])
    text = path.read_text()
    line = None
    for old, new in case["replace"]:
        assert old in text, f"{old!r} is not in {path.name}"
        if line is None:
            line = text[: text.index(old)].count("\n") + 1
        text = text.replace(old, new, 1)
    path.write_bytes(text.encode("utf-8").replace(b"<0xff>", b"\xff"))
    assert line is not None
    return int(case.get("line", line + case.get("line_offset", 0)))


def assert_refused(cli: Invoke, root: Path, file: str, line: int | None, expect: str) -> None:
    before = snapshot(root)
    result = cli("render", root=root)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line_re = str(line) if line is not None else r"\d+"
    where = rf"^error: \S*catalogs/{file}\.yaml:{line_re}: "
    assert re.match(where, lines[0]), lines[0]
    assert expect in lines[0]
    assert "Traceback" not in result.stderr
    assert before and snapshot(root) == before


@pytest.mark.parametrize("case_file", CASES, ids=[c.stem for c in CASES])
def test_invalid_catalog_is_refused_with_one_line_and_nothing_written(
    cli: Invoke, root: Path, case_file: Path
) -> None:
    case = load_data(case_file.read_text())
    line = apply(root, case)
    assert_refused(cli, root, case["file"], line, case["expect"])


def test_the_corpus_covers_at_least_thirty_cases() -> None:
    assert len(CASES) >= 30


def test_a_billion_laughs_bomb_is_refused_fast(cli: Invoke, root: Path) -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        prev = chr(ord("a") + i - 1)
        lines.append(f"{chr(ord('a') + i)}: &{chr(ord('a') + i)} [{','.join(['*' + prev] * 9)}]")
    (root / "catalogs/benchmark.yaml").write_text("\n".join(lines) + "\n")
    start = time.monotonic()
    assert_refused(cli, root, "benchmark", 2, "YAML alias '*a' is not supported")
    assert time.monotonic() - start < 5


def test_a_50_mb_catalog_is_refused_without_parsing(cli: Invoke, root: Path) -> None:
    path = root / "catalogs/accuracy.yaml"
    path.write_text(path.read_text() + ("# padding padding padding padding\n" * 1_500_000))
    start = time.monotonic()
    assert_refused(cli, root, "accuracy", 1, "the limit is 16777216 bytes")
    assert time.monotonic() - start < 5


def test_a_missing_catalog_is_refused(cli: Invoke, root: Path) -> None:
    (root / "catalogs/accuracy.yaml").unlink()
    assert_refused(cli, root, "accuracy", 1, "cannot read catalog")
