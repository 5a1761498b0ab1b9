"""GitHub Actions limits the generated workflows must stay inside, and cron syntax."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from generator.commands import MAX_MATRIX_JOBS, MAX_OUTPUT_BYTES, cases
from generator.cron import cron_problem
from generator.errors import Loc, SglangCIError
from generator.jobset import selection_jobs
from generator.model import Catalog
from generator.output import compact_size, job_json
from generator.rules.base import Hit
from generator.select import selection

# https://docs.github.com/en/actions: "workflow_dispatch ... maximum of 25 top-level
# properties" for inputs; an expression may be at most 21,000 characters.
MAX_DISPATCH_INPUTS = 25
MAX_EXPRESSION_CHARS = 21_000
# templates/benchmark.yml.j2 declares: suite, server_mode, image, publish_dashboard, plus
# one `<key>_preset` dropdown per suite (8 inputs with the two shipped suites).
FIXED_DISPATCH_INPUTS = 4
_EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.DOTALL)


def _matrix(what: str, loc: Loc, include: list[dict[str, Any]]) -> Iterator[tuple[str, Loc, str]]:
    if len(include) > MAX_MATRIX_JOBS:
        yield (
            "L701",
            loc,
            (
                f"{what} makes {len(include)} jobs; a GitHub matrix holds at most "
                f"{MAX_MATRIX_JOBS}: split it"
            ),
        )
    size = compact_size({"include": include})
    if size > MAX_OUTPUT_BYTES:
        yield (
            "L702",
            loc,
            (
                f"{what} is {size} bytes of matrix JSON; a job output holds at "
                f"most {MAX_OUTPUT_BYTES}: split it"
            ),
        )


def matrices(catalog: Catalog) -> Iterator[tuple[str, Loc, str]]:
    """L701/L702/L706: every schedule, preset and accuracy level makes a matrix GitHub takes.

    Source: GitHub Actions docs, "A matrix can generate a maximum of 256 jobs per workflow
    run" and "Job outputs ... maximum of 1 MB per job" (the matrix travels as a job output).
    Computed as `sglang-ci jobs --group/--preset` and `sglang-ci cases --level` compute it.
    """
    targets: list[tuple[str, Loc, dict[str, str]]] = [
        (f"cron group '{s.name}'", s.loc, {"group": s.name}) for s in catalog.schedules
    ]
    targets += [
        (f"preset '{p.name}' ({p.suite})", p.loc, {"preset": p.name, "suite": p.suite})
        for p in catalog.presets
    ]
    for what, loc, selectors in targets:
        try:
            sel = selection(catalog, **selectors)
            jobs = selection_jobs(catalog, sel, sel.mode)
        except SglangCIError as e:
            yield "L706", loc, f"{what}: {e.message}"
            continue
        timeout = catalog.estimates.job_timeout_minutes
        yield from _matrix(what, loc, [job_json(j, catalog.default_image, timeout) for j in jobs])
    levels = dict.fromkeys(level for case in catalog.cases for level in case.levels)
    for level in levels:
        loc = next(c.loc for c in catalog.cases if level in c.levels)
        try:
            entries = cases(catalog, level=level)
        except SglangCIError:
            continue  # a case that cannot be resolved is reported by L100
        yield from _matrix(f"accuracy level '{level}'", loc, entries)


def dispatch_inputs(catalog: Catalog) -> Iterator[tuple[str, Loc, str]]:
    """L703: the benchmark workflow's workflow_dispatch inputs stay within 25.

    Count: FIXED_DISPATCH_INPUTS (suite, server_mode, image, publish_dashboard) plus one
    preset dropdown per suite, as templates/benchmark.yml.j2 renders them.
    """
    count = FIXED_DISPATCH_INPUTS + len(catalog.suites)
    if count > MAX_DISPATCH_INPUTS and catalog.suites:
        yield (
            "L703",
            catalog.suites[-1].loc,
            (
                f"the benchmark workflow would have {count} dispatch inputs ({len(catalog.suites)} "
                f"suites); GitHub allows {MAX_DISPATCH_INPUTS}: merge suites"
            ),
        )


def expressions(catalog: Catalog) -> Iterator[tuple[str, Loc, str]]:
    """L704: no `${{ }}` expression in the rendered workflows exceeds 21,000 characters.

    Reads `.github/workflows/*.yml` beside the catalogs when they have been rendered.
    """
    root = Path(catalog.benchmark_file).parent.parent
    for path in sorted((root / ".github" / "workflows").glob("*.y*ml")):
        text = path.read_text(encoding="utf-8")
        for m in _EXPRESSION.finditer(text):
            if len(m[0]) > MAX_EXPRESSION_CHARS:
                line = text.count("\n", 0, m.start()) + 1
                yield (
                    "L704",
                    Loc(str(path), line),
                    (
                        f"an expression of {len(m[0])} characters; GitHub allows "
                        f"{MAX_EXPRESSION_CHARS}: move the data into a committed JSON file"
                    ),
                )


def crons(catalog: Catalog) -> Iterator[tuple[str, Loc, str]]:
    """L705: cron strings as GitHub accepts them (generator.cron.cron_problem): five fields,
    day of week 0-6, no @macros, not more often than every 5 minutes."""
    entries = [(s.cron, s.loc) for s in catalog.schedules]
    entries.append((catalog.accuracy_schedule[0], Loc(catalog.accuracy_file, 1)))
    for cron, loc in entries:
        problem = cron_problem(cron)
        if problem:
            yield "L705", loc, problem


def check(catalog: Catalog) -> Iterator[Hit]:
    for part in (matrices, dispatch_inputs, expressions, crons):
        for rule, loc, message in part(catalog):
            yield Hit(rule=rule, loc=loc, message=message)
