"""What each subcommand computes; the click layer only parses options and prints."""

from __future__ import annotations

from typing import Any

from generator.errors import LimitError, SelectionError
from generator.expand import cells_of, check_modes, image_for
from generator.explain import find, render
from generator.jobset import selection_jobs
from generator.model import Catalog
from generator.output import case_entries, cell_json, compact_size, job_json
from generator.select import Selection, selection

MAX_MATRIX_JOBS = 256
MAX_OUTPUT_BYTES = 1024 * 1024


def _mode_and_image(
    catalog: Catalog, sel: Selection, mode: str | None, image: str | None
) -> tuple[str | None, str]:
    chosen = mode or sel.mode
    check_modes(catalog, sel.configs, chosen, image)
    return chosen, image_for(catalog, chosen, image)


def cells(
    catalog: Catalog, *, mode: str | None = None, image: str | None = None, **selectors: str | None
) -> list[dict[str, Any]]:
    sel = selection(catalog, **selectors)
    chosen, shown = _mode_and_image(catalog, sel, mode, image)
    return [cell_json(c, shown) for c in cells_of(catalog, sel.configs, chosen)]


def jobs(
    catalog: Catalog, *, mode: str | None = None, image: str | None = None, **selectors: str | None
) -> dict[str, Any]:
    sel = selection(catalog, **selectors)
    chosen, shown = _mode_and_image(catalog, sel, mode, image)
    timeout = catalog.estimates.job_timeout_minutes
    include = [job_json(j, shown, timeout) for j in selection_jobs(catalog, sel, chosen)]
    seen: dict[str, str] = {}
    for job in include:
        if job["id"] in seen:
            raise SelectionError(
                f"job id '{job['id']}' is made by configs '{seen[job['id']]}' "
                f"and '{job['config']}'; rename one prefix"
            )
        seen[job["id"]] = job["config"]
    check_matrix_limits(f"{sel.kind} '{sel.name}'", include)
    return {"include": include}


def check_matrix_limits(what: str, include: list[dict[str, Any]]) -> None:
    if len(include) > MAX_MATRIX_JOBS:
        raise LimitError(
            f"{what} makes {len(include)} jobs; a GitHub matrix holds at most {MAX_MATRIX_JOBS}"
        )
    size = compact_size({"include": include})
    if size > MAX_OUTPUT_BYTES:
        raise LimitError(
            f"{what} is {size} bytes of matrix JSON; a job output holds at most {MAX_OUTPUT_BYTES}"
        )


def cases(
    catalog: Catalog, *, level: str | None = None, suite: str | None = None
) -> list[dict[str, Any]]:
    from generator.errors import SelectionError, did_you_mean

    known = [s.name for s in catalog.accuracy_suites]
    if suite is not None and suite not in known:
        raise SelectionError(f"unknown accuracy suite '{suite}'{did_you_mean(suite, known)}")
    return [
        entry
        for case in catalog.cases
        if (level is None or level in case.levels) and (suite is None or case.suite == suite)
        for entry in case_entries(catalog, case)
    ]


def explain(
    catalog: Catalog,
    wanted: str,
    *,
    mode: str | None = None,
    image: str | None = None,
    kind: str | None = None,
) -> str:
    """Commands of the cell, job or case with id `wanted` (`kind` settles a shared id)."""
    entries: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for suite in catalog.suites:
        m = mode if mode in suite.server_modes else None
        for cell in cells(catalog, mode=m, image=image, suite=suite.name):
            entries.setdefault(cell["id"], []).append(("cell", cell))
        for job in jobs(catalog, mode=m, image=image, suite=suite.name)["include"]:
            entries.setdefault(job["id"], []).append(("job", job))
    for case in cases(catalog):
        entries.setdefault(case["id"], []).append(("case", case))
    found = [e for e in find(entries, wanted) if kind is None or e[0] == kind]
    if len(found) != 1:
        kinds = " and a ".join(k for k, _ in find(entries, wanted))
        raise SelectionError(f"id '{wanted}' is a {kinds}; pass --kind to choose")
    return render(*found[0])
