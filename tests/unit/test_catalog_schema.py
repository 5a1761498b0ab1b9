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
        ("parallel", {"tp": 8, "dp_attention": False}, "configs[0].parallel: 'dp' is required"),
        ("parallel", {"tp": 8, "dp": 1, "dp_attention": True},
         "configs[0].parallel.dp: 1 must be >= 2"),
        ("display", "R1\u2028TP8", ('configs[0].display: "R1\\u2028TP8" must be one line of '
          "printable text (no control character, line or paragraph separator, or bidirectional "
          "control)")),
    ],
    ids=[
        "type", "minimum", "dp-attention-without-dp", "dp-attention-with-one-rank",
        "line-separator",
    ],
)  # fmt: skip
def test_a_wrong_value_is_described_in_words(key: str, value: object, expected: str) -> None:
    doc = benchmark()
    doc["configs"][0][key] = value
    assert refusal(doc).split(": ", 1)[1] == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("    parallel: {tp: 4}\n", "    tp: 4\n",
         "configs[0].tp: unknown key 'tp' (did you mean 'parallel.tp'?)"),
        ("    parallel: {tp: 4}\n", "    parallel: {tp: 4}\n    ep: 4\n",
         "configs[0].ep: unknown key 'ep' (did you mean 'parallel.ep'?)"),
    ],
    ids=["tp", "ep"],
)  # fmt: skip
def test_a_key_written_one_level_too_high_is_hinted_where_it_belongs(
    old: str, new: str, expected: str
) -> None:
    text = (FIXTURE / SHOWN).read_text(encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1 + new.count("\n") - 1
    assert refusal(benchmark(old, new)) == f"{SHOWN}:{line}: {expected}"


def test_a_section_too_large_says_its_size_and_the_bound_never_its_contents() -> None:
    text = (FIXTURE / SHOWN).read_text(encoding="utf-8")
    line = text[: text.index("\nconfigs:")].count("\n") + 2
    doc = benchmark()
    configs = doc["configs"]
    doc["configs"] = [configs[i % len(configs)] for i in range(20001)]
    assert refusal(doc) == f"{SHOWN}:{line}: configs: 20,001 entries; at most 20,000"
