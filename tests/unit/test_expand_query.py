"""generator.expand.query: a suite, cron group or preset by name, and a hint within its
own kind when the name is unknown."""

from __future__ import annotations

import pytest

from generator.errors import SelectionError
from generator.expand.query import cases, find_preset, find_schedule, query

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from generator.expand.expanded import Expanded


def refusal(call: Callable[[], object]) -> str:
    with pytest.raises(SelectionError) as info:
        call()
    return str(info.value)


def test_a_suite_is_found_by_name_or_key_and_hinted_case_aside(fixture: Expanded) -> None:
    assert {c.suite for c in query(fixture, suite="SGLang-OOB").configs} == {"SGLang-OOB"}
    assert refusal(lambda: query(fixture, suite="sglang-oob")) == (
        "unknown suite 'sglang-oob' (did you mean 'SGLang-OOB'?)"
    )


@pytest.mark.parametrize(
    ("name", "suite", "message"),
    [
        ("all-glm", None, "unknown preset 'all-glm'; `sglang-ci summary` lists the presets"),
        ("ALL-OOB", None, "unknown preset 'ALL-OOB' (did you mean 'all-oob'?)"),
        ("fp4-al", None, "unknown preset 'fp4-al' (did you mean 'ds-fp4-all'?)"),
        ("fp4-al", "SGLang-Mesh", "unknown preset 'fp4-al' (did you mean 'fp4-all'?)"),
        ("all-qwen", "SGLang-Mesh", ("preset 'all-qwen' is a preset of SGLang-OOB, not of "
         "SGLang-Mesh: choose suite SGLang-OOB (--suite SGLang-OOB), or a SGLang-Mesh preset")),
    ],
    ids=["no-alias-of-another-suite", "case", "names-only", "suite-aliases", "other-suite"],
)  # fmt: skip
def test_an_unknown_preset_is_hinted_within_its_own_kind(
    fixture: Expanded, name: str, suite: str | None, message: str
) -> None:
    assert refusal(lambda: find_preset(fixture, name, suite)) == message


def test_an_alias_finds_its_preset_and_an_unknown_group_is_hinted(fixture: Expanded) -> None:
    assert find_preset(fixture, "fp4-all").name == "ds-fp4-all"
    assert refusal(lambda: find_schedule(fixture, name="oob", cron=None)) == (
        "unknown cron group 'oob' (did you mean 'oob-all'?)"
    )


def test_the_accuracy_cases_of_a_level_and_a_suite(fixture: Expanded) -> None:
    nightly = cases(fixture, "nightly", None)
    assert len(nightly) == 17
    assert len(cases(fixture, "nightly", "atom")) == 15
    assert cases(fixture, "pr", "sglang") == []
    assert len(cases(fixture, None, None)) == len(nightly) + len(cases(fixture, "pr", None))
    assert refusal(lambda: cases(fixture, None, "Atom")) == (
        "unknown accuracy suite 'Atom' (did you mean 'atom'?)"
    )
