"""The generated docs: the coverage tables, the runners page and the recipe pages (launch
commands per model family, as `sglang-ci explain` prints them)."""

from __future__ import annotations

from typing import TypedDict

from generator.catalog.catalog_types import PER_SERVER, matches
from generator.expand.entries import case_entry, job_entry
from generator.expand.select import default_mode
from generator.explain_text import case_text, job_text
from generator.plan.coverage import summary
from generator.plan.coverage_markdown import markdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded
    from generator.render.templates import Templates


class RecipeEntry(TypedDict):
    """A job or case on a recipe page (recipe.md.j2): what it is and its commands."""

    title: str
    kind: str
    id: str
    runner: str
    mode: str | None
    commands: str


def coverage(expanded: Expanded, t: Templates) -> dict[str, str]:
    return {"docs/coverage.md": t("coverage.md.j2", tables=markdown(summary(expanded)))}


def runners(expanded: Expanded, t: Templates) -> dict[str, str]:
    """docs/runners.md: the runner contract of every label, and what a machine needs."""
    catalog = expanded.catalog
    users: dict[str, list[str]] = {r.label: [] for r in catalog.runners}
    for c in catalog.configs:
        users[c.runner].append(f"config `{c.prefix}`")
    for case in catalog.cases:
        for label in case.labels:
            users[label].append(f"case `{case.id}`")
    rows = [
        {
            "label": r.label,
            "gpus": r.gpus,
            "count": r.count,
            "model_cache": r.model_cache,
            "allocation_file": r.allocation_file,
            "options": " ".join(f"`{o}`" for o in r.container_options) or "none",
            "users": users[r.label],
        }
        for r in catalog.runners
    ]
    build = catalog.image_build
    builder = (
        None
        if build is None
        else {"runner": build.runner, "base": build.base, "repository": build.repository}
    )
    return {"docs/runners.md": t("runners.md.j2", runners=rows, builder=builder)}


def _pairs(job_id: str, prefix: str) -> str:
    rest = job_id[len(prefix) :].lstrip("-")
    return f" ({rest.replace('-', ', ')})" if rest else ""


def recipes(expanded: Expanded, t: Templates) -> dict[str, str]:
    """One page per `recipes:` entry: the jobs of the configs its selectors match, then the
    accuracy cases the same selectors match (by the cases' own fields)."""
    catalog = expanded.catalog
    out = {}
    for title, selectors in catalog.recipes:
        entries: list[RecipeEntry] = []
        for config in catalog.configs:
            if not matches(config, selectors):
                continue
            mode = default_mode(catalog, config)
            for job in expanded.jobs[(config.prefix, mode, PER_SERVER)]:
                entry = job_entry(catalog, job, catalog.default_image)
                entry["points"] = []
                entries.append(
                    {
                        "title": config.display + _pairs(job.id, config.prefix),
                        "kind": "Benchmark job",
                        "id": job.id,
                        "runner": entry["runner"],
                        "mode": entry["server_mode"],
                        "commands": job_text(entry, f"benchmark job {job.id}: {config.display}"),
                    }
                )
        for run in expanded.case_runs:
            if matches(run.case, selectors):
                entry_c = case_entry(catalog, run, run.case.levels[0])
                entries.append(
                    {
                        "title": run.name + " (GSM8K)",
                        "kind": "Accuracy case",
                        "id": run.id,
                        "runner": entry_c["runner"],
                        "mode": None,
                        "commands": case_text(entry_c),
                    }
                )
        out[f"docs/recipes/{title}.md"] = t("recipe.md.j2", title=title, entries=entries)
    return out
