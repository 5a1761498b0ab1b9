"""`generator.lint.rules.rule_table`: the rule ids, live and retired."""

from __future__ import annotations

from generator.lint.rules.rule_table import RETIRED, RULES


def test_the_retired_rules_are_out_of_the_rule_table() -> None:
    assert sorted(RETIRED) == [
        "L100",
        "L103",
        "L504",
        "L505",
        "L601",
        "L602",
        "L701",
        "L702",
        "L703",
        "L704",
        "L705",
        "L706",
    ]
    assert not set(RETIRED) & set(RULES)
