"""Stage `explain`: the exact commands of anything an id names, as explain_text.py writes them."""

from __future__ import annotations

from generator.catalog.catalog_types import PER_SERVER, Config
from generator.errors import SelectionError, did_you_mean
from generator.expand.entries import case_entry, job_entry, point_entry
from generator.expand.expanded import KINDS, CaseRun, Cell, Expanded, Job, Target
from generator.expand.select import check_mode, default_mode, image_for
from generator.explain_text import case_text, job_text


def _mode_for(expanded: Expanded, config: Config, mode: str | None) -> str:
    chosen = mode or default_mode(expanded.catalog, config)
    check_mode(expanded.catalog, [config.suite], chosen, None)
    return chosen


def _job_units(expanded: Expanded, t: Target, mode: str | None) -> list[tuple[Job, str]]:
    if t.selection is not None:
        runs = t.selection.runs
        chosen = mode if mode is not None else next(iter(runs))
        if chosen not in runs:
            check_mode(expanded.catalog, (c.suite for c in t.selection.configs), chosen, None)
            msg = f"{t.kind} '{t.id}' has no run in server mode '{chosen}'"
            raise SelectionError(msg)
        return [(j, f"{t.kind} {t.id}") for j in runs[chosen].jobs]
    config = t.config
    assert config is not None
    jobs = expanded.jobs[(config.prefix, _mode_for(expanded, config, mode), PER_SERVER)]
    if t.kind == "config":
        return [(j, f"config {config.prefix}") for j in jobs]
    return [(j, "job") for j in jobs if j.id == t.id]


def _cell(expanded: Expanded, t: Target, mode: str | None) -> tuple[Cell, Job]:
    config = t.config
    assert config is not None
    chosen = _mode_for(expanded, config, mode)
    for job in expanded.jobs[(config.prefix, chosen, PER_SERVER)]:
        for cell in job.cells:
            if cell.id == t.id:
                return cell, job
    msg = f"cell '{t.id}' has no run in server mode '{chosen}'"
    raise SelectionError(msg)


def _case_runs(expanded: Expanded, t: Target) -> list[CaseRun]:
    runs = [r for r in expanded.case_runs if r.case is t.case]
    exact = [r for r in runs if r.id == t.id]
    return exact or runs


def _targets(expanded: Expanded, wanted: str, kind: str | None) -> list[Target]:
    found = list(expanded.index.get(wanted, ()))
    chosen = [t for t in found if kind is None or t.kind == kind]
    if chosen:
        return chosen
    ids = [i for i, ts in expanded.index.items() if kind is None or any(t.kind == kind for t in ts)]
    what = f"no {kind}" if kind else "nothing"
    others = f" (it names a {' and a '.join(t.kind for t in found)})" if found else ""
    msg = f"{what} has id '{wanted}'{others}{did_you_mean(wanted, ids)}"
    raise SelectionError(msg)


def explain(
    expanded: Expanded,
    wanted: str,
    *,
    kind: str | None = None,
    mode: str | None = None,
    image: str | None = None,
    release: str | None = None,
) -> str:
    """The commands of everything `wanted` names (`kind` narrows it to one of KINDS), the
    server's flags named as SGLang `release` names them (None: as the catalog writes them)."""
    if kind is not None and kind not in KINDS:
        msg = f"unknown kind '{kind}'{did_you_mean(kind, KINDS)}"
        raise SelectionError(msg)
    catalog = expanded.catalog
    parts: dict[tuple[str, str, str], str] = {}
    kinds: list[str] = []
    for t in _targets(expanded, wanted, kind):
        kinds.append(t.kind)
        if t.kind == "case":
            for run in _case_runs(expanded, t):
                for level in run.case.levels:
                    label = run.case.runner_for(level)
                    shown = level if len(run.case.labels) > 1 else ""
                    parts.setdefault(
                        ("case", run.id, label),
                        case_text(case_entry(catalog, run, level), shown, release),
                    )
        elif t.kind == "cell":
            cell, job = _cell(expanded, t, mode)
            check_mode(catalog, [cell.config.suite], cell.server.mode, image)
            entry = job_entry(catalog, job, image_for(catalog, cell.server.mode, image))
            entry["points"] = [point_entry(cell)]
            title = f"cell {cell.id}: {cell.config.display} (a point of job {job.id})"
            parts.setdefault(("cell", cell.id, cell.server.mode), job_text(entry, title, release))
        else:
            for job, via in _job_units(expanded, t, mode):
                check_mode(catalog, [job.config.suite], job.server.mode, image)
                entry = job_entry(catalog, job, image_for(catalog, job.server.mode, image))
                of = f" (of {via})" if via != "job" else ""
                title = f"benchmark job {job.id}: {job.config.display}{of}"
                parts.setdefault(("job", job.id, job.server.mode), job_text(entry, title, release))
    text = "\n".join(parts.values())
    if len(set(kinds)) > 1:
        names = " and a ".join(dict.fromkeys(kinds))
        text = f"# '{wanted}' names a {names}; --kind chooses one\n\n" + text
    return text
