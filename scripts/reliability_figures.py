"""The figures of docs/reliability.md, from the test suite.

    .venv/bin/python scripts/reliability_figures.py [--collect-only] [--check FILE]

- Faults survived / tried: the tests marked `fault` under tests/launchers/ that pass, of
  all of them (each parametrized case counts once).
- Hostile inputs refused / tried: of the test cases of the hostile-input files
  (HOSTILE_FILES) that check a refusal (their name says "refuse"), those that pass.
- Hostile values carried as literal data / tried: of the other test cases of those files
  (a hostile value reaches matrices and `explain` as the exact string and never a
  workflow file, or the corpus covers enough cases), those that pass.

`--collect-only` counts without running (every collected test taken as passing), and
`--check FILE` exits 1 when FILE does not state these figures or its fault table does not
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
HOSTILE_FILES = (
    "tests/unit/test_hostile_values.py",
    "tests/acceptance/test_invalid_catalogs.py",
    "tests/unit/test_render_limits.py",
    "tests/unit/test_launch_contract.py",
)
FAULTS_COMMAND = ".venv/bin/python -m pytest -m fault tests/launchers"
HOSTILE_COMMAND = ".venv/bin/python -m pytest " + " ".join(HOSTILE_FILES)
# A row of the fault table names its test as `file.py::test_name[param]` in backticks.
_TABLE_TEST = re.compile(r"`(test_[a-z_]+\.py::test_[^`]+)`")


@dataclass
class _Recorder:
    """A pytest plugin: what was collected (and marked `fault`), and what passed."""

    faults: list[str] = field(default_factory=list)
    collected: list[str] = field(default_factory=list)
    failed: set[str] = field(default_factory=set)
    ran: set[str] = field(default_factory=set)

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            self.collected.append(item.nodeid)
            if item.get_closest_marker("fault") is not None:
                self.faults.append(item.nodeid)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.ran.add(report.nodeid)
        if report.failed or report.skipped:
            self.failed.add(report.nodeid)


@dataclass(frozen=True)
class Figures:
    faults: list[str]
    survived: int
    refusals: list[str]
    refused: int
    literals: list[str]
    carried: int

    def lines(self) -> list[str]:
        return [
            f"Faults survived / tried: {self.survived} / {len(self.faults)}",
            f"Hostile inputs refused / tried: {self.refused} / {len(self.refusals)}",
            (
                "Hostile values carried as literal data / tried: "
                f"{self.carried} / {len(self.literals)}"
            ),
        ]


def _pytest(args: list[str], recorder: _Recorder) -> int:
    with redirect_stdout(io.StringIO()):
        return int(pytest.main(["-p", "no:cacheprovider", "-q", *args], plugins=[recorder]))


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
        missing = set(recorder.faults + hostile) - recorder.ran
        recorder.failed |= missing
    passed = {n for n in recorder.faults + hostile if n not in recorder.failed}
    refusals = [n for n in hostile if "refuse" in n.split("::")[1]]
    literals = [n for n in hostile if n not in refusals]
    return Figures(
        faults=recorder.faults,
        survived=sum(n in passed for n in recorder.faults),
        refusals=refusals,
        refused=sum(n in passed for n in refusals),
        literals=literals,
        carried=sum(n in passed for n in literals),
    )


def drift(doc: Path, found: Figures) -> list[str]:
    """What FILE gets wrong: a figure it does not state, a fault test it does not name,
    a test it names that is not a fault test."""
    text = doc.read_text(encoding="utf-8")
    problems = [f"{doc}: does not state '{line}'" for line in found.lines() if line not in text]
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
    commands = (FAULTS_COMMAND, HOSTILE_COMMAND, HOSTILE_COMMAND)
    for line, command in zip(found.lines(), commands, strict=True):
        print(f"{line}  ({command})")
    if args.check is None:
        return 0
    problems = drift(args.check, found)
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
