"""The compiled schema checks agree with jsonschema on every document: valid or not."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from jsonschema._utils import equal as js_equal
from jsonschema._utils import uniq as js_unique

from generator import schemacheck
from generator.errors import CatalogError
from generator.validate import SCHEMAS, fast_checks, validator
from generator.yamlio import parse_mapping
from tests.acceptance.test_invalid_catalogs import CASES, apply
from tests.catalog_gen import catalog_specs
from tests.helpers import ROOT, copy_repo

CHECKS = fast_checks()


def plain(value: Any) -> Any:
    """The document as dicts and lists (what jsonschema sees either way)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def agree(name: str, doc: Any) -> bool:
    assert CHECKS is not None
    expected = validator(name).is_valid(doc)
    assert CHECKS[name](doc) == expected
    return expected


def shipped(name: str) -> Any:
    return parse_mapping((ROOT / f"catalogs/{name}.yaml").read_text(), name)


def test_the_keywords_are_jsonschema_s_own() -> None:
    assert set(Draft202012Validator.VALIDATORS) == schemacheck.KEYWORDS


def test_the_catalog_schemas_compile() -> None:
    assert CHECKS is not None
    assert set(CHECKS) == set(SCHEMAS)


def test_a_schema_with_a_keyword_it_does_not_read_is_left_to_jsonschema() -> None:
    schema = {"$id": "https://x/s.json", "type": "array", "contains": {"const": 1}}
    assert schemacheck.compile_all({"s": schema}) is None
    nested = {"$id": "https://x/s.json", "items": {"$id": "other.json"}}
    assert schemacheck.compile_all({"s": nested}) is None


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_shipped_catalogs_are_valid_both_ways(name: str) -> None:
    assert agree(name, shipped(name))


@pytest.mark.parametrize("case_file", CASES, ids=[c.stem for c in CASES])
def test_every_broken_catalog_gets_the_same_verdict(tmp_path: Path, case_file: Path) -> None:
    case = yaml.safe_load(case_file.read_text())
    root = copy_repo(tmp_path, generated=False)
    apply(root, case)
    try:
        text = (root / "catalogs" / f"{case['file']}.yaml").read_text()
        doc = parse_mapping(text, "catalog.yaml")
    except (UnicodeDecodeError, CatalogError):
        return  # refused before validation
    agree(case["file"], doc)


@settings(max_examples=30, deadline=None, database=None)
@given(catalog_specs())
def test_generated_catalogs_are_valid_both_ways(spec: Any) -> None:
    assert agree("benchmark", spec.benchmark)
    assert agree("accuracy", spec.accuracy)


VALUES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 2, 8, 64, 65, 1000, 4321, 10**20, 1.0, 0.5, 1.5, -0.5,
    float("nan"), float("inf"), "", "x", "X", "1", "a b", "a\nb", "--page-size", "--Bad",
    "8192x1024", "1x0", "0x1", "lmsysorg/sglang-rocm*", "SGLang-OOB", "mode", "config",
    "lm-eval", "none", "mtp1", "nightly", "pr", "0 14 * * 1", [], [1], ["x"], ["x", "x"],
    [1, 1.0], [True, 1], [0, False], {}, {"a": 1}, {"tp": 8}, {"tp": 8, "dp": 2},
)  # fmt: skip
NAMES = ("bogus", "tp", "dp", "ep", "args", "env", "grid", "select", "name", "suite", "kind")


def _walk(data: st.DataObject, doc: Any) -> tuple[Any, Any]:
    """A random container in `doc` and a key or index in it (None: the container itself)."""
    parent: Any = doc
    while True:
        keys = list(parent) if isinstance(parent, dict) else list(range(len(parent)))
        if not keys:
            return parent, None
        key = data.draw(st.sampled_from(keys))
        child = parent[key]
        if not isinstance(child, (dict, list)) or data.draw(st.integers(0, 3)) == 0:
            return parent, key
        parent = child


def mutate(data: st.DataObject, doc: Any) -> None:
    parent, key = _walk(data, doc)
    how = data.draw(st.sampled_from(["replace", "replace", "delete", "add", "repeat"]))
    if how == "replace" and key is not None:
        parent[key] = copy.deepcopy(data.draw(st.sampled_from(VALUES)))
    elif how == "delete" and key is not None:
        del parent[key]
    elif how == "add" and isinstance(parent, dict):
        parent[data.draw(st.sampled_from(NAMES))] = copy.deepcopy(
            data.draw(st.sampled_from(VALUES))
        )
    elif how == "repeat" and isinstance(parent, list) and parent:
        parent.append(copy.deepcopy(parent[0]))


BASES = {name: plain(shipped(name)) for name in SCHEMAS}


@settings(max_examples=400, deadline=None, database=None)
@given(st.sampled_from(SCHEMAS), st.data())
def test_edited_catalogs_get_the_same_verdict(name: str, data: st.DataObject) -> None:
    doc = copy.deepcopy(BASES[name])
    for _ in range(data.draw(st.integers(1, 3))):
        mutate(data, doc)
    agree(name, doc)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-2, 2)
    | st.sampled_from([0.0, 1.0, 2.5])
    | st.text(max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, database=None)
@given(json_values, json_values)
def test_equality_and_uniqueness_are_jsonschema_s(one: Any, two: Any) -> None:
    assert schemacheck.equal(one, two) == js_equal(one, two)
    items = [one, two, one] if isinstance(one, list) else [one, two]
    assert schemacheck.unique(items) == js_unique(items)
