"""Catalog to generated files, in memory: workflows, matrices, actionlint config, docs."""

from __future__ import annotations

import functools
import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from generator import commands
from generator.cron import describe
from generator.explain import render as explain_render
from generator.gcpause import without_cycle_collector
from generator.jobset import jobs_of
from generator.model import Catalog
from generator.output import case_entries, dumps, job_json
from generator.select import matches
from generator.summary import markdown, preset_label, summary

if TYPE_CHECKING:
    import jinja2

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
MATRICES = ".github/matrices"
CONTAINER_OPTIONS = (
    "--device=/dev/kfd --device=/dev/dri --group-add video --ipc=host --shm-size=64g "
    "--security-opt seccomp=unconfined --cap-add=SYS_PTRACE"
)


@functools.cache
def environment(templates: Path = TEMPLATES) -> jinja2.Environment:
    """The one Jinja2 environment: delimiters that cannot clash with ${{ }}, strict undefined.

    Jinja2 is imported here: only the commands that render need it.
    """
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates)),
        block_start_string="<%",
        block_end_string="%>",
        variable_start_string="<<",
        variable_end_string=">>",
        comment_start_string="<#",
        comment_end_string="#>",
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["q"] = lambda v: json.dumps(str(v), ensure_ascii=False)
    env.filters["sh"] = lambda v: shlex.quote(str(v))
    pins = yaml.safe_load((templates / "actions.yaml").read_text())
    env.globals["pin"] = lambda name: (
        f"{pins[name]['repo']}@{pins[name]['sha']} # {pins[name]['version']}"
    )
    env.globals["container_options"] = CONTAINER_OPTIONS
    return env


def _template(name: str, **context: Any) -> str:
    return environment().get_template(name).render(template=name, **context)


def preset_stem(suite_key: str, preset: str) -> str:
    """`<suite key>/<preset>`: the select step puts the server mode between them."""
    return f"{suite_key}/{preset}"


def benchmark_matrices(catalog: Catalog) -> dict[str, str]:
    out: dict[str, str] = {}
    for s in catalog.schedules:
        out[f"{MATRICES}/benchmark/schedule/{s.name}.json"] = dumps(
            commands.jobs(catalog, group=s.name)
        )
    for p in catalog.presets:
        suite = catalog.suite(p.suite)
        for mode in suite.server_modes:
            path = f"{MATRICES}/benchmark/preset/{suite.key}/{mode}/{p.name}.json"
            out[path] = dumps(commands.jobs(catalog, preset=p.name, suite=p.suite, mode=mode))
    return out


def accuracy_matrices(catalog: Catalog) -> dict[str, str]:
    return {
        f"{MATRICES}/accuracy/{level}.json": dumps(
            {"include": commands.cases(catalog, level=level)}
        )
        for level in ("nightly", "pr")
    }


def benchmark_workflow(catalog: Catalog) -> str:
    schedules = [
        {
            "cron": s.cron,
            "title": s.title,
            "when": describe(s.cron),
            "file": f"schedule/{s.name}.json",
        }
        for s in catalog.schedules
    ]
    suites = []
    for suite in catalog.suites:
        # Group presets first (the first is the default), then one per config.
        mine = sorted(
            (p for p in catalog.presets if p.suite == suite.name), key=lambda p: p.per_config
        )
        presets = [
            {"label": preset_label(catalog, p), "stem": preset_stem(suite.key, p.name)}
            for p in mine
        ]
        suites.append(
            {
                "name": suite.name,
                "key": suite.key,
                "presets": presets,
                "server_modes": list(suite.server_modes),
            }
        )
    modes = [{"name": m.name, "image_pattern": m.image_pattern} for m in catalog.server_modes]
    return _template(
        "benchmark.yml.j2",
        schedules=schedules,
        suites=suites,
        modes=modes,
        default_image=catalog.default_image,
    )


def accuracy_workflow(catalog: Catalog) -> str:
    cron, level = catalog.accuracy_schedule
    levels = [
        {"name": name, "file": f"{name}.json", "count": len(commands.cases(catalog, level=name))}
        for name in ("nightly", "pr")
    ]
    return _template(
        "accuracy-nightly.yml.j2",
        levels=levels,
        schedule={"cron": cron, "level": level, "when": describe(cron)},
    )


def recipes(catalog: Catalog) -> dict[str, str]:
    out = {}
    for title, selectors in catalog.recipes:
        entries = []
        configs = tuple(c for c in catalog.configs if matches(c, selectors))
        for job in jobs_of(catalog, configs):
            data = job_json(job, catalog.default_image, catalog.estimates.job_timeout_minutes)
            data["points"] = []
            entries.append(
                {
                    "title": job.cells[0].config.display + _pairs(job.id, data["config"]),
                    "kind": "Benchmark job",
                    "id": job.id,
                    "runner": data["runner"],
                    "mode": data["server_mode"],
                    "commands": explain_render("job", data),
                }
            )
        families = {f for _, values in (f for s in selectors for f in s.fields) for f in values}
        for case in catalog.cases:
            if case.model.family in families:
                for data in case_entries(catalog, case):
                    entries.append(
                        {
                            "title": data["name"] + " (GSM8K)",
                            "kind": "Accuracy case",
                            "id": data["id"],
                            "runner": data["runner"],
                            "mode": None,
                            "commands": explain_render("case", data),
                        }
                    )
        out[f"docs/recipes/{title}.md"] = _template("recipe.md.j2", title=title, entries=entries)
    return out


def _pairs(job_id: str, prefix: str) -> str:
    rest = job_id[len(prefix) :].lstrip("-")
    return f" ({rest.replace('-', ', ')})" if rest else ""


@without_cycle_collector
def render_all(catalog: Catalog) -> dict[str, str]:
    """Every generated file, path relative to the repository root -> content."""
    out: dict[str, str] = {}
    out.update(benchmark_matrices(catalog))
    out.update(accuracy_matrices(catalog))
    out[".github/workflows/benchmark.yml"] = benchmark_workflow(catalog)
    out[".github/workflows/benchmark-job.yml"] = _template("benchmark-job.yml.j2")
    out[".github/workflows/accuracy-case.yml"] = _template("accuracy-case.yml.j2")
    out[".github/workflows/accuracy-nightly.yml"] = accuracy_workflow(catalog)
    out[".github/workflows/pr.yml"] = _template("pr.yml.j2", pr_file="pr.json")
    labels = sorted({r.label for r in catalog.runners})
    out[".github/actionlint.yaml"] = _template("actionlint.yaml.j2", runner_labels=labels)
    out["docs/coverage.md"] = _template("coverage.md.j2", tables=markdown(summary(catalog)))
    out.update(recipes(catalog))
    return dict(sorted(out.items()))
