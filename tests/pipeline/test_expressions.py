"""The pipeline harness's expressions behave as GitHub documents them: the cases its
documentation gives, and the ones the rendered workflows rely on."""

from __future__ import annotations

import math

import pytest

from tests.pipeline import expressions as ex

CONTEXT = {
    "github": {"event_name": "schedule", "event": {"schedule": "0 14 * * *"}},
    "needs": {
        "select": {"result": "success", "outputs": {"count": "0", "matrix": '{"a": 1.0}'}},
        "run": {"result": "failure", "outputs": {}},
    },
    "inputs": {"n": 3.0, "flag": False},
}


def value(text: str) -> object:
    return ex.evaluate(text, CONTEXT, lambda name: name == "always")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Loose equality: different types compare as numbers; strings ignore case.
        ("null == 0", True),
        ("'' == 0", True),
        ("'3' == 3", True),
        ("true == 1", True),
        ("'abc' == 'ABC'", True),
        ("'abc' == 0", False),  # NaN equals nothing
        ("needs.select.outputs.count != '0'", False),
        ("needs.select.outputs.count == 0", True),
        # && and || return an operand.
        ("'' || 'default'", "default"),
        ("'x' && 'y'", "y"),
        ("0 && 'y'", 0.0),
        ("needs.missing.outputs.count || 'none'", "none"),  # a missing property is null
        ("!inputs.flag", True),
        ("inputs.n > 2 && inputs.n <= 3", True),
        ("contains('abc', 'B')", True),
        ("startsWith('refs/heads/main', 'refs/heads/')", True),
        ("format('{0}-{1}', 'a', 1)", "a-1"),
        ("format('{{0}} {0}', 'x')", "{0} x"),
        ("fromJSON(needs.select.outputs.matrix).a", 1.0),
        ("needs.*.result", ["success", "failure"]),
        ("contains(needs.*.result, 'failure')", True),
        ("github.event['schedule']", "0 14 * * *"),
        ("0x10", 16.0),
    ],
)
def test_operators_compare_and_return_as_github_documents(text: str, expected: object) -> None:
    assert value(text) == expected


def test_numbers_print_as_github_prints_doubles() -> None:
    assert (
        ex.to_json({"a": 1.0, "b": [2.5, 3.0]}) == '{\n  "a": 1,\n  "b": [\n    2.5,\n    3\n  ]\n}'
    )
    assert ex.as_text(4.0) == "4"
    assert ex.as_text(None) == ""
    assert ex.as_text(True) == "true"
    assert ex.as_text({"a": 1}) == "Object"
    assert math.isnan(ex._number("abc"))


@pytest.mark.parametrize(
    ("condition", "ancestors_ok", "expected"),
    [
        # No status function: success() && (...), so a failed job before it skips it.
        ("${{ github.event_name == 'schedule' }}", False, False),
        ("${{ github.event_name == 'schedule' }}", True, True),
        ("${{ always() && github.event_name == 'schedule' }}", False, True),
        ("github.event_name == 'schedule'", True, True),  # without ${{ }}
        (None, False, False),  # absent: success()
        ("${{ !cancelled() }}", False, True),
    ],
)
def test_an_if_without_a_status_function_needs_every_job_before_it_to_succeed(
    condition: str | None, ancestors_ok: bool, expected: bool
) -> None:
    def status(name: str) -> bool:
        return {
            "always": True,
            "cancelled": False,
            "success": ancestors_ok,
            "failure": not ancestors_ok,
        }[name]

    assert ex.condition(condition, CONTEXT, status) is expected


def test_a_whole_expression_keeps_its_type_and_embedded_ones_become_text() -> None:
    assert ex.interpolate("${{ fromJSON('{\"include\": [1]}') }}", CONTEXT) == {"include": [1]}
    assert ex.interpolate("n=${{ inputs.n }}", CONTEXT) == "n=3"
    with pytest.raises(ex.ExpressionError, match="unknown function"):
        ex.evaluate("nosuch()", CONTEXT)
