"""The generated workflows: the benchmark and accuracy entry points, the reusable job
workflows, the PR checks and actionlint's runner labels."""

from __future__ import annotations

from generator.catalog.catalog_types import LEVELS
from generator.catalog.cron import describe
from generator.plan.coverage import preset_label
from generator.render.matrices import level_entries

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded
    from generator.render.templates import Templates

WORKFLOWS = ".github/workflows"
# The dropdowns' default: a dispatch runs nothing unless a preset or configs are chosen.
NONE_LABEL = "none (run nothing)"
# Where scheduled runs and default-branch dispatches keep their result directories.
HISTORY_BRANCH = "benchmark-data"


def preset_stem(suite_key: str, preset: str) -> str:
    """`<suite key>/<preset>`: the select step puts the server mode between them."""
    return f"{suite_key}/{preset}"


def benchmark_workflow(expanded: Expanded, t: Templates) -> str:
    catalog = expanded.catalog
    schedules = [
        {
            "cron": s.cron,
            "title": s.title,
            "when": describe(str(s.cron)),
            "file": f"schedule/{s.name}.json",
        }
        for s in expanded.schedules
    ]
    suites = []
    for suite in catalog.suites:
        # Group presets first (the first is the default), then one per config.
        mine = sorted(
            (p for p in expanded.presets if p.suite == suite.name),
            key=lambda p: p.per_config,
        )
        presets = [{"label": preset_label(p), "stem": preset_stem(suite.key, p.name)} for p in mine]
        suites.append(
            {
                "name": suite.name,
                "key": suite.key,
                "presets": presets,
                "server_modes": list(suite.server_modes),
            }
        )
    modes = [{"name": m.name, "image_pattern": m.image_pattern} for m in catalog.server_modes]
    return t(
        "benchmark.yml.j2",
        schedules=schedules,
        suites=suites,
        modes=modes,
        default_image=catalog.default_image,
        none_label=NONE_LABEL,
        kind="benchmark",
        history_branch=HISTORY_BRANCH,
    )


def accuracy_workflow(expanded: Expanded, t: Templates) -> str:
    cron, level = expanded.catalog.accuracy_schedule
    levels = [
        {"name": name, "file": f"{name}.json", "count": len(level_entries(expanded, name))}
        for name in LEVELS
    ]
    return t(
        "accuracy-nightly.yml.j2",
        levels=levels,
        schedule={"cron": cron, "level": level, "when": describe(cron)},
        kind="accuracy",
        history_branch=HISTORY_BRANCH,
    )


def workflows(expanded: Expanded, t: Templates) -> dict[str, str]:
    build = expanded.catalog.image_build
    labels = sorted(
        {r.label for r in expanded.catalog.runners} | ({build.runner} if build else set())
    )
    return {
        f"{WORKFLOWS}/benchmark.yml": benchmark_workflow(expanded, t),
        f"{WORKFLOWS}/benchmark-job.yml": t("benchmark-job.yml.j2"),
        f"{WORKFLOWS}/confirm-job.yml": t("confirm-job.yml.j2"),
        f"{WORKFLOWS}/ab-noise.yml": t(
            "ab-noise.yml.j2",
            suites=[{"name": s.name} for s in expanded.catalog.suites],
            history_branch=HISTORY_BRANCH,
        ),
        f"{WORKFLOWS}/accuracy-case.yml": t("accuracy-case.yml.j2"),
        f"{WORKFLOWS}/accuracy-nightly.yml": accuracy_workflow(expanded, t),
        f"{WORKFLOWS}/pr.yml": t("pr.yml.j2"),
        f"{WORKFLOWS}/pr-gpu.yml": t(
            "pr-gpu.yml.j2",
            build=None
            if build is None
            else {"runner": build.runner, "timeout_minutes": build.timeout_minutes},
        ),
        ".github/actionlint.yaml": t("actionlint.yaml.j2", runner_labels=labels),
    }
