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
