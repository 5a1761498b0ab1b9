"""The JSON shapes the CLI prints and the matrices hold (one place for each shape)."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from generator.estimate import shown as minutes
from generator.expand import Cell, Server, case_server, ratio_text
from generator.model import Case, Catalog
from generator.pack import Job

# orjson writes what the json module writes, except NaN and the infinities (null) and floats
# json writes with an exponent (1e-05 becomes 0.00001, 1e-07 becomes 1e-7). Text with a null,
# an exponent or "0.0000" anywhere (in a string too) is left to the json module, and so is
# anything orjson refuses: a subclass, a non-string key, an integer beyond 64 bits, a lone
# surrogate, ...
_PASSTHROUGH = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)
_EXPONENT = re.compile(rb"e[-+][0-9]")  # orjson's exponents are lower case and signed


def _orjson(data: Any, option: int) -> bytes | None:
    """orjson's text when it is the json module's, else None."""
    try:
        text = orjson.dumps(data, option=option | _PASSTHROUGH)
    except TypeError:  # orjson.JSONEncodeError
        return None
    if b"null" in text or b"0.0000" in text or _EXPONENT.search(text):
        return None
    return text


def dumps(data: Any) -> str:
    """Deterministic JSON text: fixed key order, UTF-8, two-space indent, newline at the end.

    Byte for byte json.dumps(data, indent=2, ensure_ascii=False), written by orjson when it
    can be (see `_orjson`).
    """
    text = _orjson(data, orjson.OPT_INDENT_2)
    if text is None:
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return text.decode() + "\n"


def compact_size(data: Any) -> int:
    """Bytes of `data` as one line of JSON, as the select step outputs it (`jq -c`)."""
    text = _orjson(data, 0)
    if text is None:
        return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
    return len(text)


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
