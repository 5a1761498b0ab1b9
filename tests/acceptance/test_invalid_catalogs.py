"""Bad catalogs: one line naming file and line, exit 2, and no generated file touched."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from generator.catalog.yamlio import load_data
from tests.helpers import ROOT, edit, snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.conftest import Invoke

CASES = sorted((ROOT / "tests/example-files/negative").glob("*.yaml"))


@pytest.fixture
def root(rendered_fixture: Path, tmp_path: Path) -> Path:
    """A copy of the fixture catalogs and their generated files: the generated files hard
    links (a command replaces a file by renaming a new one over it, never writes into it,
    and the snapshot would see either), the catalogs copies to break."""
    root = Path(shutil.copytree(rendered_fixture, tmp_path / "repo", copy_function=os.link))
    for catalog in (root / "catalogs").iterdir():
        catalog.unlink()
        shutil.copyfile(rendered_fixture / "catalogs" / catalog.name, catalog)
    return root


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
    assert before
    assert snapshot(root) == before


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


def peak_of_render(root: Path) -> tuple[int, str, float, int]:
    """`sglang-ci render` of `root` in a fresh interpreter: its exit code, standard error,
    CPU seconds (user and system, interpreter start included: what the work costs, however
    busy the machine) and peak resident memory (KiB: the process's own high-water mark,
    VmHWM; getrusage's ru_maxrss also counts the pages of the test process it was forked
    from, as large as the tests before made it)."""
    code = (
        "import resource, sys\n"
        "from generator.cli.sglang_ci import main\n"
        "try:\n"
        "    main(['--root', sys.argv[1], 'render'])\n"
        "except SystemExit as e:\n"
        "    code = e.code\n"
        "used = resource.getrusage(resource.RUSAGE_SELF)\n"
        "status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
        "print(code, used.ru_utime + used.ru_stime, status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(root)], capture_output=True, text=True, check=False
    )
    exit_code, seconds, peak_kib = done.stdout.split()
    return int(exit_code), done.stderr, float(seconds), int(peak_kib)


def test_a_grid_of_twelve_million_cells_is_refused_before_any_cell_exists(root: Path) -> None:
    path = root / "catalogs/benchmark.yaml"
    pairs = ", ".join(f"{isl}x1024" for isl in range(1, 3001))
    concurrency = ", ".join(str(c) for c in range(1, 4001))
    line = edit(
        path,
        "    pairs: [1024x1024, 8192x1024]\n    concurrency: [4, 8, 16, 32, 64]\n",
        f"    pairs: [{pairs}]\n    concurrency: [{concurrency}]\n",
    )
    before = snapshot(root)
    exit_code, stderr, seconds, peak_kib = peak_of_render(root)
    config_line = line_of(path, "  - prefix: deepseek-r1-fp8-tp4\n")
    assert exit_code == 2
    assert stderr.splitlines() == [
        (
            f"error: {path}:{config_line}: config 'deepseek-r1-fp8-tp4' has 12,000,000 cells "
            "(3,000 pairs); a config runs at most 65,536 (its preset: 256 jobs of 256 points)"
        )
    ]
    assert line < config_line
    assert seconds < 5
    assert peak_kib < 200 * 1024
    assert snapshot(root) == before


def test_configs_over_the_catalog_s_cells_are_refused_at_the_config_that_crosses(
    cli: Invoke, root: Path
) -> None:
    """Each config is within its own bound (40,000 cells), but 12 of them make 480,000."""
    path = root / "catalogs/benchmark.yaml"
    pairs = ", ".join(f"{isl}x1024" for isl in range(1, 201))
    concurrency = ", ".join(str(c) for c in range(1, 201))
    edit(
        path,
        "    pairs: [1024x1024, 8192x1024]\n    concurrency: [4, 8, 16, 32, 64]\n",
        f"    pairs: [{pairs}]\n    concurrency: [{concurrency}]\n",
    )
    seventh = line_of(path, "  - prefix: deepseek-r1-fp4-tp8-mtp1\n")
    assert_refused(
        cli,
        root,
        "benchmark",
        seventh,
        "the configs up to 'deepseek-r1-fp4-tp8-mtp1' make 280,000 cells over their server "
        "modes; a catalog makes at most 250,000: shrink grids or split the catalog",
    )


def line_of(path: Path, text: str) -> int:
    content = path.read_text()
    return content[: content.index(text)].count("\n") + 1
