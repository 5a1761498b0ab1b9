"""The house rules on generator/'s modules (issue reviews measure them with
scripts/code_size.py): none over 400 lines, half of them at most 120, and no file name
used twice, so that a name says which module it is."""

from __future__ import annotations

import statistics
from collections import Counter

from tests.helpers import ROOT

MODULES = sorted((ROOT / "generator").rglob("*.py"))


def test_no_module_is_over_400_lines_and_the_median_is_at_most_120() -> None:
    sizes = {p.relative_to(ROOT).as_posix(): p.read_text().count("\n") for p in MODULES}
    assert {name: n for name, n in sizes.items() if n > 400} == {}
    assert statistics.median(sizes.values()) <= 120


def test_no_two_modules_share_a_file_name() -> None:
    names = Counter(p.name for p in MODULES if p.name != "__init__.py")
    assert {name: n for name, n in names.items() if n > 1} == {}


# The modules tested under another file's name, each with the file that holds its tests.
TESTED_ELSEWHERE = {
    "cli/catalog_commands.py": "tests/acceptance/test_plan.py, test_servers.py: options only",
    "cli/confirm_commands.py": "tests/acceptance/test_confirm_end_to_end.py: options only",
    "cli/results_commands.py": "tests/acceptance/test_results_*.py: options only",
    "cli/verify_commands.py": "tests/acceptance/test_verify.py: options only",
    "core/contract.py": "TypedDicts alone, checked by mypy; tests/unit/test_core_entry_checks.py",
    "render/drift.py": "tests/acceptance/test_drift.py: the drift check on a copy of the repo",
    "render/workflows.py": "tests/acceptance/test_workflows.py: actionlint and zizmor on them",
}


def test_each_module_has_a_unit_test_file_named_for_it() -> None:
    """generator/<package>/[...]/<name>.py -> tests/unit/test_<package>_<name>.py
    (a top-level module: test_<name>.py), unless TESTED_ELSEWHERE says where."""
    files = {p.name for p in (ROOT / "tests" / "unit").glob("test_*.py")}
    untested = []
    for path in MODULES:
        rel = path.relative_to(ROOT / "generator")
        if path.name in ("__init__.py", "__main__.py") or rel.as_posix() in TESTED_ELSEWHERE:
            continue
        name = "_".join((rel.parts[0], path.name) if len(rel.parts) > 1 else rel.parts)
        if f"test_{name}" not in files:
            untested.append(rel.as_posix())
    assert untested == []
    assert all((ROOT / "generator" / rel).is_file() for rel in TESTED_ELSEWHERE)
