"""generator/results/record_columns.py: the typed shape a record is read with."""

from __future__ import annotations

import json

import pytest

from generator.results.record_columns import IMAGE_FAMILY_SQL, STRUCTURE, structure_literal
from generator.results.store import Store


@pytest.mark.parametrize(
    ("ref", "family"),
    [
        ("rocm/sgl-dev:nightly", "rocm/sgl-dev"),
        ("rocm/sgl-dev@sha256:abc", "rocm/sgl-dev"),
        ("rocm/sgl-dev:v0.5@sha256:abc", "rocm/sgl-dev"),
        ("registry.local:5000/team/img:tag", "registry.local:5000/team/img"),
        ("registry.local:5000/team/img", "registry.local:5000/team/img"),
        ("lmsysorg/sglang", "lmsysorg/sglang"),
    ],
)
def test_the_image_family_is_the_repository_without_tag_or_digest(ref: str, family: str) -> None:
    row = Store().con.execute(f"SELECT {IMAGE_FAMILY_SQL.format(ref='?')}", [ref]).fetchone()
    assert row == (family,)


def test_the_structure_is_a_sql_string_literal_of_its_json() -> None:
    assert json.loads(structure_literal().replace("''", "'")) == STRUCTURE
    assert STRUCTURE["point"] == {
        "pair": "VARCHAR", "isl": "BIGINT", "osl": "BIGINT", "concurrency": "BIGINT",
        "num_prompts": "BIGINT",
    }  # fmt: skip
