"""The generated docs: the coverage tables, the runners page, the recipe pages (launch
commands per model family, as `sglang-ci explain` prints them), and the knob table of the
hand-written docs/launchers.md."""

from __future__ import annotations

from typing import Any

from generator.catalog.model import PER_SERVER, matches
from generator.catalog.upstream import LM_EVAL, SGLANG, index, supported
from generator.errors import Loc, SglangCIError
from generator.expand.entries import case_entry, job_entry
from generator.expand.select import default_mode
from generator.explain import case_text, job_text
from generator.launch.knob_table import KNOBS
from generator.plan.coverage import markdown, summary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.model import Expanded
    from generator.render.templates import Templates


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
        entries: list[dict[str, Any]] = []
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


LAUNCHERS = "docs/launchers.md"
KNOBS_BEGIN = "<!-- @generated from generator/launch/knob_table.py by `make workflows` -->\n"
KNOBS_END = "<!-- end of the generated table -->\n"
LINT = "docs/lint.md"
RELEASES_BEGIN = (
    "<!-- @generated from generator/catalog/flagtables/index.json by `make workflows` -->\n"
)
RELEASES_END = KNOBS_END


def generated_block(
    root: Path, page: str, markers: tuple[str, str], what: str, block: str
) -> dict[str, str]:
    """A hand-written page as the checkout has it, with `block` between its two marker
    lines (nothing when the page is not there: only the block is generated)."""
    path = root / page
    if not path.is_file():
        return {}
    begin_line, end_line = markers
    text = path.read_text(encoding="utf-8")
    head, begin, rest = text.partition(begin_line)
    _, end, tail = rest.partition(end_line)
    if not begin or not end or begin_line in rest or end_line in tail:
        msg = (
            f"the page must hold the line {begin_line.strip()!r} and, after it, the line "
            f"{end_line.strip()!r}, once each: {what} goes between them"
        )
        raise SglangCIError(msg, Loc(page, head.count("\n") + 1 if begin else 1))
    return {page: head + begin + block + end + tail}


def launcher_knobs(root: Path, t: Templates) -> dict[str, str]:
    """docs/launchers.md with the table between its two marker lines rendered from the
    launcher's own table of knobs."""
    table = t("knobs.md.j2", knobs=KNOBS)
    return generated_block(root, LAUNCHERS, (KNOBS_BEGIN, KNOBS_END), "the knob table", table)


def lint_releases(root: Path, t: Templates) -> dict[str, str]:
    """docs/lint.md with the releases the flag tables cover between its two marker lines."""
    tools = [
        {"name": "SGLang", "releases": index(SGLANG).releases, "supported": supported(SGLANG)},
        {"name": "lm-eval", "releases": index(LM_EVAL).releases, "supported": supported(LM_EVAL)},
    ]
    block = t("releases.md.j2", tools=tools, sglang=supported(SGLANG))
    return generated_block(root, LINT, (RELEASES_BEGIN, RELEASES_END), "the release table", block)
