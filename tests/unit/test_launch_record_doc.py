"""generator.launch.record_doc: a record's JSON holds no non-finite number."""

from __future__ import annotations

import json

from generator.launch.record_doc import text


def test_a_non_finite_number_is_never_written() -> None:
    assert "NaN" not in text({"value": float("nan"), "nested": [float("inf")]})
    assert json.loads(text({"value": float("-inf")})) == {"value": None}
