"""Jobs, cells and case runs as the JSON entries the launcher reads (the matrices hold
them; `sglang-ci jobs/cells/cases` print them). The shapes are `generator.launch.contract`."""

from __future__ import annotations

from typing import Any, cast

from generator.catalog.model import Catalog
from generator.expand.cells import ratio_text
from generator.expand.estimate import shown as minutes
from generator.expand.model import CaseRun, Cell, Job, Server
from generator.launch.contract import CaseEntry, EvaluatorEntry, JobEntry, PointEntry


def point_entry(cell: Cell) -> PointEntry:
    return {
        "id": cell.id,
        "isl": cell.pair.isl,
        "osl": cell.pair.osl,
        "concurrency": cell.concurrency,
        "random_range_ratio": cell.random_range_ratio,
        "num_prompts": cell.num_prompts,
        "num_warmups": cell.num_warmups,
        "estimate_minutes": minutes(cell.minutes),
    }


def job_entry(catalog: Catalog, job: Job, image: str) -> JobEntry:
    config = job.config
    server = job.server
    return {
        "id": job.id,
        "suite": config.suite,
        "config": config.prefix,
        "display": config.display,
        "dashboard_model": config.dashboard_model or config.display,
        "model_path": config.model.path,
        "runner": server.runner,
        "image": image,
        "server_mode": server.mode,
        "server_args": list(server.args),
        "env": dict(server.env),
        "timeout_minutes": catalog.estimates.job_timeout_minutes,
        "startup_minutes": minutes(job.startup_minutes),
        "estimate_minutes": minutes(job.minutes),
        "points": [point_entry(c) for c in job.cells],
    }


def cell_entry(cell: Cell, image: str) -> dict[str, Any]:
    """A cell on its own (`sglang-ci cells`): its config, its point and its server."""
    config, server = cell.config, cell.server
    point = dict(point_entry(cell))
    return {
        "id": point.pop("id"),
        "suite": config.suite,
        "config": config.prefix,
        "display": config.display,
        "dashboard_model": config.dashboard_model or config.display,
        "model_path": config.model.path,
        "pair": str(cell.pair),
        "ratio_text": ratio_text(cell.random_range_ratio),
        **point,
        **_server(server, image),
    }


def _server(server: Server, image: str) -> dict[str, Any]:
    return {
        "runner": server.runner,
        "image": image,
        "server_mode": server.mode,
        "server_args": list(server.args),
        "env": dict(server.env),
    }


def case_entry(catalog: Catalog, run: CaseRun) -> CaseEntry:
    case = run.case
    suite = catalog.accuracy_suite(case.suite)
    evaluator: dict[str, Any] = {"kind": suite.evaluator.kind, **dict(suite.evaluator.settings)}
    ev = cast(EvaluatorEntry, evaluator)
    return {
        "id": run.id,
        "case": case.id,
        "name": run.name,
        "suite": case.suite,
        "benchmark": case.benchmark,
        "model_path": case.model.path,
        "server_args": list(run.server.args),
        "env": dict(run.server.env),
        "runner": case.runner,
        "image": run.image,
        "levels": list(case.levels),
        "threshold": case.threshold,
        "timeout_minutes": suite.timeout_minutes,
        "evaluator": ev,
    }
