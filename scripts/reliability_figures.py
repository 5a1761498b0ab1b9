"""The figures of docs/reliability.md, from the test suite.

    .venv/bin/python scripts/reliability_figures.py [--collect-only] [--check FILE]

One row per kind of hostile input (GROUPS: the test files that try them; the launcher
faults are the tests marked `fault` under tests/launchers/), each test case counted once
(a parametrized case is one):

- tried: the test cases;
- refused: those that pass and check a refusal (their name says "refuse"): one line,
  the exit code of bad input, nothing written or started;
- harmless: the others that pass: the input is carried as literal data, skipped with a
  warning, survived, or cannot reach what it aims at;
- crashed: those that fail with a traceback or an exit code of 3 (a bug);
- harmful: those that fail otherwise (the input did what it aimed at).

`--collect-only` counts without running (every collected test taken as passing), and
`--check FILE` exits 1 when FILE does not hold these rows or its fault table does not
name exactly the fault tests. Uses pytest, so run it with the project's venv.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAULT_DIR = "tests/launchers"
FAULTS = "Launcher faults"
GROUPS: dict[str, tuple[str, ...]] = {
    "Catalogs": (
        "tests/acceptance/test_invalid_catalogs.py",
        "tests/unit/test_hostile_values.py",
        "tests/unit/test_render_limits.py",
    ),
    "Dispatch inputs and job files": (
        "tests/acceptance/test_dispatch_hostile.py",
        "tests/unit/test_core_entry_checks.py",
        "tests/unit/test_core_field_checks.py",
    ),
    "Results and histories": (
        "tests/acceptance/test_hostile_results.py",
        "tests/unit/test_results_output.py",
        "tests/unit/test_results_output_dirs.py",
        "tests/unit/test_markdown_text.py",
    ),
}
HOSTILE_FILES = tuple(f for files in GROUPS.values() for f in files)
# A row of the fault table names its test as `file.py::test_name[param]` in backticks.
_TABLE_TEST = re.compile(r"`(test_[a-z_]+\.py::test_[^`]+)`")
_CRASH = re.compile(r"Traceback \(most recent call last\)|exit_code == 3|returncode == 3|"
                    r"An unexpected error has occurred")  # fmt: skip


@dataclass
class _Recorder:
    """A pytest plugin: what was collected (and marked `fault`), and what failed how."""

    faults: list[str] = field(default_factory=list)
    collected: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # node id -> its failure text
    ran: set[str] = field(default_factory=set)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            self.collected.append(item.nodeid)
            if item.get_closest_marker("fault") is not None:
                self.faults.append(item.nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ran.add(report.nodeid)
        if report.failed or report.skipped:
            self.failed[report.nodeid] = self.failed.get(report.nodeid, "") + report.longreprtext


@dataclass(frozen=True)
class Row:
    name: str
    tried: int
    refused: int
    harmless: int
    crashed: int
    harmful: int

    def line(self) -> str:
        return (
            f"| {self.name} | {self.tried} | {self.refused} | {self.harmless} | "
            f"{self.crashed} | {self.harmful} |"
        )


@dataclass(frozen=True)
class Figures:
    faults: list[str]
    rows: list[Row]

    def lines(self) -> list[str]:
        return [row.line() for row in self.rows]


def _pytest(args: list[str], recorder: _Recorder) -> int:
    with redirect_stdout(io.StringIO()):
        return int(pytest.main(["-p", "no:cacheprovider", "-q", *args], plugins=[recorder]))


def _row(name: str, tests: list[str], failed: dict[str, str]) -> Row:
    refusals = {t for t in tests if "refuse" in t.split("::")[1]}
    broken = {t for t in tests if t in failed}
    crashed = {t for t in broken if _CRASH.search(failed[t])}
    return Row(
        name=name,
        tried=len(tests),
        refused=len(refusals - broken),
        harmless=len(set(tests) - refusals - broken),
        crashed=len(crashed),
        harmful=len(broken - crashed),
    )


def figures(*, collect_only: bool) -> Figures:
    recorder = _Recorder()
    paths = [FAULT_DIR, *HOSTILE_FILES]
    code = _pytest(["--collect-only", "-n0", *paths], recorder)
    if code != 0:
        msg = f"reliability_figures.py: collecting {paths} failed with {code}"
        raise SystemExit(msg)
    hostile = [n for n in recorder.collected if n.split("::")[0] in HOSTILE_FILES]
    if not collect_only:
        _pytest([*recorder.faults, *hostile], recorder)
        for missing in set(recorder.faults + hostile) - recorder.ran:
            recorder.failed[missing] = "not run"
    rows = [
        _row(name, [n for n in hostile if n.split("::")[0] in files], recorder.failed)
        for name, files in GROUPS.items()
    ]
    rows.append(_row(FAULTS, recorder.faults, recorder.failed))
    return Figures(faults=recorder.faults, rows=rows)


def drift(doc: Path, found: Figures) -> list[str]:
    """What FILE gets wrong: a row it does not hold, a fault test it does not name, a
    test it names that is not a fault test."""
    text = doc.read_text(encoding="utf-8")
    problems = [
        f"{doc}: does not hold the row '{line}'" for line in found.lines() if line not in text
    ]
    named = set(_TABLE_TEST.findall(text))
    tests = {n.split("/")[-1] for n in found.faults}
    problems += [f"{doc}: the fault table does not name `{t}`" for t in sorted(tests - named)]
    problems += [f"{doc}: `{t}` is not a fault test" for t in sorted(named - tests)]
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="reliability_figures.py")
    parser.add_argument("--collect-only", action="store_true")
    parser.add_argument("--check", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    found = figures(collect_only=args.collect_only)
    print("| Hostile inputs | Tried | Refused | Harmless | Crashed | Harmful |")
    print("|---|---:|---:|---:|---:|---:|")
    for line in found.lines():
        print(line)
    if args.check is None:
        return 0
    problems = drift(args.check, found)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
