"""generator.core.record_types: each TypedDict of a record names the keys its JSON Schema
(generator/results/schemas/record-1.schema.json) names, at every level."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from generator.core import record_types as rt
from generator.results.record import schema


def _shape(kind: str, *path: str) -> dict[str, Any]:
    shape: dict[str, Any] = next(
        s for s in schema()["oneOf"] if s["properties"]["kind"]["const"] == kind
    )
    for key in path:
        shape = shape["properties"][key]
    return shape


SHAPES = {
    "point record": (rt.PointRecord, _shape("point")),
    "case record": (rt.CaseRecord, _shape("case")),
    "point metrics": (rt.PointMetrics, _shape("point", "metrics")),
    "case metrics": (rt.CaseMetrics, _shape("case", "metrics")),
    "point": (rt.RecordPoint, _shape("point", "point")),
    "client": (rt.ToolRun, _shape("point", "client")),
    "evaluator": (rt.ToolRun, _shape("case", "evaluator")),
    "validity": (rt.Validity, _shape("point", "validity")),
    "server": (rt.ServerCommand, _shape("point", "server")),
    "timings": (rt.Timings, _shape("case", "timings")),
    "provenance": (rt.Provenance, _shape("point", "provenance")),
    "image": (rt.ImageProvenance, _shape("point", "provenance", "image")),
    "gpu": (rt.GpuProvenance, _shape("point", "provenance", "gpu")),
    "github": (rt.GithubProvenance, _shape("case", "provenance", "github")),
}


@pytest.mark.parametrize(("typed", "shape"), SHAPES.values(), ids=SHAPES.keys())
def test_the_typeddict_has_the_schemas_keys(typed: type, shape: dict[str, Any]) -> None:
    assert set(typed.__annotations__) == set(shape["properties"])
    assert set(shape["required"]) <= set(typed.__annotations__)


@pytest.mark.parametrize(("kind", "statuses"), [("point", rt.PointStatus), ("case", rt.CaseStatus)])
def test_the_statuses_are_the_schemas(kind: str, statuses: object) -> None:
    assert set(get_args(statuses)) == set(_shape(kind, "status")["enum"])
