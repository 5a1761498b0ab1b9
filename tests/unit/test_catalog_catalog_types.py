"""generator.catalog.catalog_types: the typed constants the schema allows, a config's pairs,
the fields a selector reads of a config or case, and how selectors match."""

from __future__ import annotations

import dataclasses
import json
from typing import get_args

import pytest

from generator.catalog.catalog_types import (
    LEVELS,
    PACKINGS,
    Config,
    Level,
    Packing,
    Pair,
    Selector,
    field_value,
    matches,
    one_of,
)
from generator.core.contract import EVALUATOR_KINDS, EvaluatorKind
from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded

SCHEMAS = ROOT / "generator" / "catalog" / "schemas"


def schema(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((SCHEMAS / f"{name}.schema.json").read_text())
    return data


def enums(node: object) -> list[list[str]]:
    """Every `enum` list in a schema."""
    if isinstance(node, dict):
        found = [node["enum"]] if "enum" in node else []
        return found + [e for value in node.values() for e in enums(value)]
    if isinstance(node, list):
        return [e for value in node for e in enums(value)]
    return []


def test_the_literal_types_hold_exactly_the_values_the_schemas_allow() -> None:
    assert LEVELS == get_args(Level) == ("nightly", "pr")
    assert PACKINGS == get_args(Packing) == ("per-server", "per-cell")
    assert EVALUATOR_KINDS == get_args(EvaluatorKind) == ("lm-eval", "sglang-few-shot-gsm8k")
    accuracy = enums(schema("accuracy"))
    assert accuracy.count(list(LEVELS)) == 2  # a case's levels and the schedule's level
    assert list(EVALUATOR_KINDS) in accuracy
    assert list(PACKINGS) in enums(schema("benchmark"))


def test_one_of_gives_the_typed_value_and_refuses_any_other() -> None:
    level: Level = one_of("pr", LEVELS)
    assert level == "pr"
    with pytest.raises(ValueError, match=r"^'weekly' is none of \('nightly', 'pr'\)"):
        one_of("weekly", LEVELS)


def config(fixture: Expanded, prefix: str) -> Config:
    return next(c for c in fixture.catalog.configs if c.prefix == prefix)


def test_a_config_finds_the_extras_of_a_pair_it_declares(fixture: Expanded) -> None:
    mesh = config(fixture, "deepseek-r1-fp8-mesh-dpa8-ep8")
    extras = mesh.extras_for(Pair(isl=8192, osl=1))
    assert extras is not None
    assert [f.tokens() for f in extras.args] == [["--chunked-prefill-size", "65536"]]
    assert mesh.extras_for(Pair(isl=1, osl=1024)) is None
    assert str(Pair(isl=8192, osl=1)) == "8192x1"
    assert dataclasses.replace(mesh.parallel, tp=4).gpus == 4


def test_selector_fields_read_the_config_and_the_model(fixture: Expanded) -> None:
    mtp = config(fixture, "deepseek-r1-fp4-tp8-mtp3")
    assert [field_value(mtp, f) for f in ("suite", "family", "precision", "spec", "prefix")] == [
        "SGLang-OOB",
        "deepseek",
        "fp4",
        "mtp3",
        "deepseek-r1-fp4-tp8-mtp3",
    ]


def test_a_selector_needs_every_field_and_a_list_of_selectors_any_of_them(
    fixture: Expanded,
) -> None:
    qwen = config(fixture, "qwen3-5-397b-a17b-fp8-tp4")
    fp8_qwen = Selector(fields=(("family", ("qwen",)), ("precision", ("fp8", "fp4"))))
    fp4_qwen = Selector(fields=(("family", ("qwen",)), ("precision", ("fp4",))))
    deepseek = Selector(fields=(("family", ("deepseek",)),))
    assert fp8_qwen.matches(qwen)
    assert not fp4_qwen.matches(qwen)
    assert matches(qwen, (deepseek, fp8_qwen))
    assert not matches(qwen, (deepseek, fp4_qwen))
    assert not matches(qwen, ())


def test_a_case_has_a_suite_and_a_prefix_only_through_its_benchmark_twin(
    fixture: Expanded,
) -> None:
    twin = next(c for c in fixture.catalog.cases if c.id == "deepseek-r1-fp8-tp4")
    alone = next(c for c in fixture.catalog.cases if c.benchmark is None)
    assert (field_value(twin, "suite"), field_value(twin, "prefix")) == (
        "SGLang-OOB",
        "deepseek-r1-fp8-tp4",
    )
    assert (field_value(alone, "suite"), field_value(alone, "prefix")) == (None, None)
