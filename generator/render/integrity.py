"""Every workflow render writes is parsed back and must declare exactly what the catalog
and the templates say: its triggers, its crons, its jobs and its dispatch inputs. A
catalog value that broke out of its place (a title that ended a comment, a name that
opened a mapping) would show here as a trigger, a cron or a job nobody declared."""

from __future__ import annotations

from typing import Any

from generator.catalog.yamlio import load_data
from generator.errors import LimitError, Loc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.catalog_types import Catalog

WORKFLOWS = ".github/workflows/"
SELECT_RUN_RESULTS = ["select", "run", "summary", "history", "pages"]
# A scheduled benchmark run confirms new suspected events and keeps the tracking issues.
BENCHMARK_JOBS = ["select", "run", "summary", "confirm", "events", "history", "pages"]


def _declares(on: str, jobs: list[str], inputs: list[str] | None = None) -> dict[str, list[str]]:
    return {"on": [on], "crons": [], "jobs": jobs, "inputs": inputs or []}


def expected(catalog: Catalog) -> dict[str, dict[str, list[str]]]:
    """What each workflow declares: triggers, crons, jobs, dispatch inputs."""
    suites = [s.key for s in catalog.suites]
    built = catalog.image_build is not None  # pr-gpu.yml builds the PR's image
    scheduled = ["schedule", "workflow_dispatch"]
    return {
        ".github/workflows/benchmark.yml": {
            "on": scheduled,
            "crons": [s.cron for s in catalog.schedules],
            "jobs": BENCHMARK_JOBS,
            "inputs": [
                "suite",
                *(f"{key}_preset" for key in suites),
                "configs",
                "points",
                "server_mode",
                "image",
                "resolve_images",
            ],
        },
        ".github/workflows/accuracy-nightly.yml": {
            "on": scheduled,
            "crons": [catalog.accuracy_schedule[0]],
            "jobs": SELECT_RUN_RESULTS,
            "inputs": ["level", "cases"],
        },
        ".github/workflows/benchmark-job.yml": _declares("workflow_call", ["check", "benchmark"]),
        ".github/workflows/confirm-job.yml": _declares("workflow_call", ["check", "confirm"]),
        ".github/workflows/ab-noise.yml": _declares(
            "workflow_dispatch", ["select", "confirm", "record"], ["suite", "configs"]
        ),
        ".github/workflows/accuracy-case.yml": _declares("workflow_call", ["check", "accuracy"]),
        ".github/workflows/pr.yml": _declares("pull_request", ["tests", "plan"]),
        ".github/workflows/pr-gpu.yml": _declares(
            "workflow_dispatch",
            ["select", "approve", *(["build", "pin"] if built else []), "accuracy", "benchmark"],
            ["pr", "benchmark", *(["build"] if built else [])],
        ),
    }


def read_back(outputs: Mapping[str, str]) -> dict[str, Any]:
    """Each workflow of `outputs` parsed once, for this check and the limits."""
    return {path: load_data(text) for path, text in outputs.items() if path.startswith(WORKFLOWS)}


def declared(doc: Mapping[str, Any]) -> dict[str, list[str]]:
    """What a workflow declares, from its text read back (`read_back`)."""
    on = doc.get("on") or {}
    dispatch = on.get("workflow_dispatch") or {}
    return {
        "on": list(on),
        "crons": [str(entry.get("cron")) for entry in on.get("schedule") or []],
        "jobs": list(doc.get("jobs") or {}),
        "inputs": list(dispatch.get("inputs") or {}),
    }


def check(catalog: Catalog, docs: Mapping[str, Any]) -> None:
    """LimitError (exit 2) naming the workflow and what differs; `docs` are the
    workflows read back."""
    for path, wanted in expected(catalog).items():
        found = declared(docs[path])
        for key in ("on", "crons", "jobs", "inputs"):
            if found[key] != wanted[key]:
                msg = (
                    f"{path} declares {key} {found[key]} where the catalog and templates "
                    f"declare {wanted[key]}: a catalog value broke out of its place"
                )
                raise LimitError(msg, Loc(path, 1))
