"""Stage 4, render: the expanded catalogs to every generated file, in memory.

`render(expanded, root)` returns {path relative to the repository root: text}: the workflows,
one matrix per cron group, preset and server mode, and accuracy level, actionlint's
runner labels, and the docs, through the templates of the checkout `root` (whose
hand-written docs/launchers.md gets its generated knob table). GitHub's limits are
checked here, on that output.
"""

from __future__ import annotations

from generator.catalog.catalog_types import LEVELS
from generator.errors import Loc
from generator.jsonio import dumps
from generator.render import boundary, integrity, limits
from generator.render.docs import coverage, recipes, runners
from generator.render.manifest import with_manifest
from generator.render.matrices import accuracy_path, benchmark_path, level_matrix, run_matrix
from generator.render.page_blocks import launcher_knobs, lint_releases
from generator.render.templates import Templates, templates_dir
from generator.render.workflows import WORKFLOWS, workflows

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded

__all__ = ["render"]


def render(expanded: Expanded, root: Path) -> dict[str, str]:
    """Every generated file, path relative to the checkout `root` -> content."""
    catalog = expanded.catalog
    t = Templates(templates_dir(root))
    out: dict[str, str] = {}
    for s in expanded.schedules:
        matrix = run_matrix(expanded, s.default_run)
        limits.check_matrix(f"cron group '{s.name}'", s.loc, matrix)
        out[benchmark_path("schedule", s.name)] = dumps(matrix)
    for p in expanded.presets:
        key = catalog.suite(str(p.suite)).key
        for mode, run in p.runs.items():
            matrix = run_matrix(expanded, run)
            limits.check_matrix(f"preset '{p.name}' ({p.suite}, {mode})", p.loc, matrix)
            out[benchmark_path("preset", p.name, key, str(mode))] = dumps(matrix)
    for level in LEVELS:
        cases = level_matrix(expanded, level)
        first = next((c.loc for c in catalog.cases if level in c.levels), None)
        where = first or Loc(catalog.accuracy_file, 1)
        limits.check_matrix(f"accuracy level '{level}'", where, cases)
        out[accuracy_path(level)] = dumps(cases)
    flows = workflows(expanded, t)
    docs = integrity.read_back(flows)
    bench = f"{WORKFLOWS}/benchmark.yml"
    limits.check_dispatch_inputs(bench, docs[bench], catalog.suites[-1].loc)
    for path, text in flows.items():
        limits.check_expressions(path, text)
    integrity.check(catalog, docs)
    boundary.check(flows, docs)
    out.update(flows)
    out.update(coverage(expanded, t))
    out.update(runners(expanded, t))
    out.update(recipes(expanded, t))
    out.update(launcher_knobs(root, t))
    out.update(lint_releases(root, t))
    return dict(sorted(with_manifest(out).items()))
