"""JSON text is the json module's, byte for byte, whichever encoder writes it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator import output
from generator.load import load_catalog
from generator.model import Catalog
from generator.render import render_all
from tests.catalog_gen import CatalogSpec, catalog_specs


def stdlib(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def stdlib_size(data: Any) -> int:
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.sampled_from(
        [1e-05, 1e-07, 5e-324, 0.0001, 1e16, 1e15, -0.0, 0.8, 1.0, 2**63, -(2**63) - 1]
    )
    | st.text()
    | st.sampled_from(["null", "1e5", "0.00001", "\u2028", "\x7f", "\x00", "é", "😀"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=500, deadline=None, database=None)
@given(values)
def test_dumps_and_compact_size_are_the_json_module_s(data: Any) -> None:
    assert output.dumps(data) == stdlib(data)
    assert output.compact_size(data) == stdlib_size(data)


@pytest.mark.parametrize(
    "data",
    [{1: "a"}, {None: 1}, {"a": "\ud800"}, [2**64], {"x": float("nan")}, [float("inf")]],
    ids=["int key", "None key", "surrogate", "big int", "nan", "inf"],
)
def test_what_orjson_refuses_or_writes_otherwise_is_written_by_the_json_module(
    data: Any,
) -> None:
    assert output.dumps(data) == stdlib(data)


def json_files(catalog: Catalog) -> dict[str, str]:
    return {k: v for k, v in render_all(catalog).items() if k.endswith(".json")}


def assert_rendered_json_is_the_json_module_s(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = json_files(catalog)
    assert fast
    with monkeypatch.context() as m:
        m.setattr(output, "_orjson", lambda data, option: None)
        assert json_files(catalog) == fast


def test_every_shipped_matrix_is_the_json_module_s(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_rendered_json_is_the_json_module_s(catalog, monkeypatch)


@settings(max_examples=15, deadline=None, database=None)
@given(catalog_specs())
def test_every_generated_matrix_is_the_json_module_s(
    tmp_path_factory: pytest.TempPathFactory, spec: CatalogSpec
) -> None:
    root = spec.write(tmp_path_factory.mktemp("catalog"))
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert_rendered_json_is_the_json_module_s(load_catalog(root), monkeypatch)
