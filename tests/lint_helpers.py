"""What the lint rules' tests share: the fixture catalogs edited on disk or in memory, and
the findings of one rule."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from generator.expand import expand
from generator.lint.checks import lint
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import Expanded
    from generator.lint.findings import LintFinding

BENCH = "catalogs/benchmark.yaml"
ACC = "catalogs/accuracy.yaml"

# The layout of the original pull request: TP4 DP8 EP8 with DP attention (L101, L102).
TP4_DP8_EP8 = (
    BENCH,
    "parallel: {tp: 8, dp: 8, ep: 8}\n    args: [trust_remote_code, parallel, aiter_runtime]",
    "parallel: {tp: 4, dp: 8, ep: 8}\n    args: [trust_remote_code, parallel, aiter_runtime]",
)


def edited(tmp_path: Path, *edits: tuple[str, str, str]) -> Expanded:
    """The fixture catalogs under tmp_path/catalogs/, each (file, old, new) edit applied to
    every occurrence of `old`, expanded."""
    root = copy_catalogs(tmp_path)
    for name, old, new in edits:
        edit(root / name, old, new, count=-1)
    return expanded_at(root)


def line_of(name: str, needle: str, root: Path | None = None) -> int:
    """1-based number of the first line of a catalog file that is `needle` once stripped,
    else of the first line that holds it."""
    lines = ((root or Path.cwd()) / name).read_text(encoding="utf-8").splitlines()
    exact = [n for n, text in enumerate(lines, 1) if text.strip() == needle.strip()]
    return exact[0] if exact else next(n for n, t in enumerate(lines, 1) if needle in t)


def by_rule(findings: list[LintFinding], rule: str) -> list[LintFinding]:
    return [f for f in findings if f.rule == rule]


def relinted(catalog: Catalog) -> list[LintFinding]:
    """Lint of a catalog changed in memory (expanded again, as the CLI would)."""
    return lint(expand(catalog))


def with_case(catalog: Catalog, case_id: str, **changes: Any) -> Catalog:
    """The catalog with one accuracy case's fields changed (as an edit of its lines would)."""
    cases = tuple(
        dataclasses.replace(c, **changes) if c.id == case_id else c for c in catalog.cases
    )
    return dataclasses.replace(catalog, cases=cases)


def with_config(catalog: Catalog, prefix: str, **changes: Any) -> Catalog:
    """The catalog with one config's fields changed (as an edit of its lines would)."""
    configs = tuple(
        dataclasses.replace(c, **changes) if c.prefix == prefix else c for c in catalog.configs
    )
    return dataclasses.replace(catalog, configs=configs)
