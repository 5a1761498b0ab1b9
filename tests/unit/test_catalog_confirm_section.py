"""`regression.confirm` (generator/catalog/confirm_section.py): defaults, values, errors at
file:line."""

from __future__ import annotations

import pytest

from generator.catalog.confirm_section import Confirm
from generator.catalog.regression import build_policy
from generator.catalog.yamlio import parse_mapping
from generator.errors import CatalogError
from tests.helpers import ROOT


def policy(text: str) -> Confirm:
    return build_policy(parse_mapping(text, "b.yaml")["regression"], "b.yaml").confirm


def test_without_the_key_nothing_is_confirmed_and_no_issue_is_kept() -> None:
    confirm = policy("regression:\n  window: 30\n")
    assert confirm == Confirm()
    assert (confirm.enabled, confirm.issues) == (False, False)
    assert (confirm.repeats, confirm.max_jobs, confirm.steps) == (3, 2, 4)


def test_given_knobs_replace_the_defaults() -> None:
    confirm = policy(
        "regression:\n  confirm:\n    enabled: true\n    repeats: 5\n    max_jobs: 1\n"
        "    bisect: false\n    issues: true\n    issue_label: perf regression\n"
    )
    assert (confirm.enabled, confirm.repeats, confirm.max_jobs) == (True, 5, 1)
    assert (confirm.bisect, confirm.steps, confirm.issues) == (False, 1, True)
    assert confirm.issue_label == "perf regression"
    assert build_policy(None, "x").as_dict()["confirm"]["repeats"] == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "regression:\n  confirm:\n    enabled: true\n    repeats: 1\n",
            "b.yaml:4: regression.confirm.repeats: 1 is less than the minimum of 2",
        ),
        (
            "regression:\n  confirm:\n    max_job: 3\n",
            (
                "b.yaml:3: regression.confirm.max_job: unknown key 'max_job' "
                "(did you mean 'max_jobs'?)"
            ),
        ),
        (
            "regression:\n  confirm:\n    enabled: yes please\n",
            "b.yaml:3: regression.confirm.enabled: 'yes please' is not of type 'boolean'",
        ),
        (
            "regression:\n  window: 30\n  confirm:\n    level: 1\n",
            "b.yaml:4: regression.confirm.level: 1 is greater than or equal to the maximum of 1",
        ),
        (
            "regression:\n  confirm:\n    issue_label: 'a,b'\n",
            (
                "b.yaml:3: regression.confirm.issue_label: 'a,b' does not match "
                "'^[A-Za-z0-9][A-Za-z0-9 ._:/-]{0,49}$'"
            ),
        ),
    ],
)
def test_a_bad_knob_is_one_line_naming_file_and_line(text: str, message: str) -> None:
    with pytest.raises(CatalogError) as error:
        policy(text)
    assert str(error.value) == message


def test_the_documented_defaults_are_the_defaults() -> None:
    text = (ROOT / "docs" / "confirmation.md").read_text()
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert policy(block) == Confirm()
