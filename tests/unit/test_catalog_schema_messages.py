"""generator.catalog.schema_messages: a violation in the catalog's words, the value shown
short and on one line."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from generator.catalog.schema_messages import describe


def said(schema: dict[str, object], value: object) -> str:
    return describe(next(Draft202012Validator(schema).iter_errors(value)))


def test_a_type_a_bound_and_a_known_pattern_are_said_in_words() -> None:
    assert (
        said({"type": ["integer", "null"]}, "8")
        == 'expected an integer or nothing, found string "8"'
    )
    assert said({"exclusiveMinimum": 0}, 0) == "0 must be > 0"
    assert said({"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}, "1X") == (
        '"1X" is not a valid environment variable name'
    )


def test_a_long_value_is_cut_and_a_line_separator_escaped() -> None:
    assert said({"maxLength": 3}, "abcd") == "4 characters; at most 3"
    assert said({"enum": [1]}, "a\u2028" + "b" * 70) == (
        "'a\\u2028" + "b" * 70 + "' is not one of [1]"
    )
    assert said({"pattern": "^x$"}, "a\u2028" + "b" * 70) == (
        '"a\\u2028' + "b" * 49 + "... does not match the pattern ^x$"
    )
