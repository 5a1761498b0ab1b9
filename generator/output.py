"""The JSON shapes the CLI prints and the matrices hold (one place for each shape)."""

from __future__ import annotations

import json
from typing import Any

from generator.estimate import shown as minutes
from generator.expand import Cell, Server, case_server, ratio_text
from generator.model import Case, Catalog
from generator.pack import Job


def dumps(data: Any) -> str:
    """Deterministic JSON text: fixed key order, UTF-8, newline at the end."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def point_json(cell: Cell) -> dict[str, Any]:
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


def _identity(cell: Cell) -> dict[str, Any]:
    config = cell.config
    return {
        "suite": config.suite,
        "config": config.prefix,
        "display": config.display,
        "dashboard_model": config.dashboard_model or config.display,
        "model_path": config.model.path,
    }


def _server(server: Server, image: str) -> dict[str, Any]:
    return {
        "runner": server.runner,
        "image": image,
        "server_mode": server.mode,
        "server_args": list(server.args),
        "env": dict(server.env),
    }


def cell_json(cell: Cell, image: str) -> dict[str, Any]:
    point = point_json(cell)
    return {
        "id": point.pop("id"),
        **_identity(cell),
        "pair": str(cell.pair),
        "ratio_text": ratio_text(cell.random_range_ratio),
        **point,
        **_server(cell.server, image),
    }


def job_json(job: Job, image: str, timeout_minutes: int) -> dict[str, Any]:
    return {
        "id": job.id,
        **_identity(job.cells[0]),
        **_server(job.server, image),
        "timeout_minutes": timeout_minutes,
        "startup_minutes": minutes(job.startup_minutes),
        "estimate_minutes": minutes(job.minutes),
        "points": [point_json(c) for c in job.cells],
    }


def case_entries(catalog: Catalog, case: Case) -> list[dict[str, Any]]:
    """One entry per image the case runs on (one entry when it pins none)."""
    server = case_server(catalog, case)
    suite = catalog.accuracy_suite(case.suite)
    base: dict[str, Any] = {
        "id": case.id,
        "name": case.name,
        "suite": case.suite,
        "benchmark": case.benchmark,
        "model_path": case.model.path,
        "server_args": list(server.args),
        "env": dict(server.env),
        "runner": case.runner,
        "levels": list(case.levels),
        "threshold": case.threshold,
        "timeout_minutes": suite.timeout_minutes,
        "evaluator": suite.evaluator.as_dict(),
    }
    if not case.images:
        return [{**base, "image": catalog.default_image}]
    return [
        {
            **base,
            "id": f"{case.id}-{key}",
            "case": case.id,
            "name": f"{case.name} ({key})",
            "image": image,
        }
        for key, image in case.images
    ]
