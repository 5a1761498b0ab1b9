"""generator.catalog.schema: the best-matching schema error, as one line at its line."""

from __future__ import annotations

from typing import Any

import pytest

from generator.catalog.schema import validate, validator
from generator.catalog.yamlio import parse_mapping
from generator.errors import CatalogError
from tests.helpers import FIXTURE

SHOWN = "catalogs/benchmark.yaml"


def benchmark(old: str = "", new: str = "") -> dict[str, Any]:
    text = (FIXTURE / SHOWN).read_text(encoding="utf-8")
    return parse_mapping(text.replace(old, new, 1), SHOWN)


def refusal(doc: object) -> str:
    with pytest.raises(CatalogError) as info:
        validate("benchmark", doc, SHOWN)
    return str(info.value)


def test_the_fixture_catalogs_are_valid_and_the_two_schemas_resolve_each_other() -> None:
    validate("benchmark", benchmark(), SHOWN)
    accuracy = "catalogs/accuracy.yaml"
    validate("accuracy", parse_mapping((FIXTURE / accuracy).read_text("utf-8"), accuracy), accuracy)
    assert validator("accuracy") is validator("accuracy")  # built once


def test_an_unknown_key_names_the_key_its_line_and_the_nearest_known_one() -> None:
    text = (FIXTURE / SHOWN).read_text(encoding="utf-8")
    line = text[: text.index("    display:")].count("\n") + 1
    assert refusal(benchmark("    display:", "    dispaly:")) == (
        f"{SHOWN}:{line}: configs[0].dispaly: unknown key 'dispaly' (did you mean 'display'?)"
    )


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("parallel", {"tp": "8"}, ("configs[0].parallel.tp: expected an integer, found string "
          '"8"')),
        ("parallel", {"tp": 0}, "configs[0].parallel.tp: 0 must be >= 1"),
        ("display", "R1\u2028TP8", ('configs[0].display: "R1\\u2028TP8" must be one line of '
          "printable text (no control character, line or paragraph separator, or bidirectional "
          "control)")),
    ],
    ids=["type", "minimum", "line-separator"],
)  # fmt: skip
def test_a_wrong_value_is_described_in_words(key: str, value: object, expected: str) -> None:
    doc = benchmark()
    doc["configs"][0][key] = value
    assert refusal(doc).split(": ", 1)[1] == expected
