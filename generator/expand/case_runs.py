"""A catalog's case runs: one per image each case pins, each run id naming one matrix entry."""

from __future__ import annotations

from generator.errors import CatalogError
from generator.expand.expanded import CaseRun
from generator.expand.ids import bounded
from generator.expand.servers import case_server

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Case, Catalog


def case_runs(catalog: Catalog) -> tuple[CaseRun, ...]:
    """Every case's runs, in catalog order."""
    runs = tuple(run for case in catalog.cases for run in _case_runs(catalog, case))
    _unique_runs(runs)
    return runs


def _unique_runs(runs: tuple[CaseRun, ...]) -> None:
    """A case run's id (the case's, with its image key when it pins images) names one
    matrix entry and its artifacts: no two runs may share one."""
    first: dict[str, CaseRun] = {}
    for run in runs:
        other = first.setdefault(run.id, run)
        if other is not run and other.case is not run.case:
            msg = (
                f"case '{run.case.id}' makes the run id '{run.id}', which case "
                f"'{other.case.id}' (line {other.case.loc.line}) makes too; two jobs would "
                "upload one artifact: rename one case"
            )
            raise CatalogError(msg, run.case.loc)


def _case_runs(catalog: Catalog, case: Case) -> list[CaseRun]:
    """One run per image the case pins (one run, on the default image, when it pins none)."""
    server = case_server(catalog, case)
    by_level = tuple((level, case_server(catalog, case, level)) for level, _ in case.level_runners)
    images: tuple[tuple[str | None, str], ...] = case.images or ((None, catalog.default_image),)
    return [
        CaseRun(
            id=case.id if key is None else bounded(f"{case.id}-{key}"),
            case=case,
            name=case.name if key is None else f"{case.name} ({key})",
            image=image,
            server=server,
            level_servers=by_level,
        )
        for key, image in images
    ]
