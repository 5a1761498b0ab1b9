"""generator.jsonio: one deterministic JSON text, non-finite numbers written as null."""

from __future__ import annotations

from generator.jsonio import compact, compact_size, dumps, finite


def test_non_finite_numbers_become_null_at_any_depth() -> None:
    inf, nan = float("inf"), float("nan")
    assert finite({"a": [1.5, inf, (nan, "x")], "b": {"c": -inf}}) == {
        "a": [1.5, None, [None, "x"]],
        "b": {"c": None},
    }


def test_the_text_keeps_key_order_and_unicode_and_ends_in_a_newline() -> None:
    assert dumps({"z": "é", "a": float("nan")}) == '{\n  "z": "é",\n  "a": null\n}\n'
    assert compact({"z": [1, 2], "a": None}) == '{"z":[1,2],"a":null}'
    assert compact_size({"é": 1}) == len('{"é":1}'.encode())
