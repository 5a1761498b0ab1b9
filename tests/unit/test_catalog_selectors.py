"""generator.catalog.selectors: the fields a selector reads of a config or case, and how
selectors match."""

from __future__ import annotations

from generator.catalog.selectors import Selector, field_value, matches

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.catalog_types import Config
    from generator.expand.expanded import Expanded


def config(fixture: Expanded, prefix: str) -> Config:
    return next(c for c in fixture.catalog.configs if c.prefix == prefix)


def test_selector_fields_read_the_config_and_the_model(fixture: Expanded) -> None:
    mtp = config(fixture, "deepseek-r1-fp4-tp8-mtp3")
    assert [field_value(mtp, f) for f in ("suite", "family", "precision", "spec", "prefix")] == [
        "SGLang-OOB",
        "deepseek",
        "fp4",
        "mtp3",
        "deepseek-r1-fp4-tp8-mtp3",
    ]


def test_a_selector_needs_every_field_and_a_list_of_selectors_any_of_them(
    fixture: Expanded,
) -> None:
    qwen = config(fixture, "qwen3-5-397b-a17b-fp8-tp4")
    fp8_qwen = Selector(fields=(("family", ("qwen",)), ("precision", ("fp8", "fp4"))))
    fp4_qwen = Selector(fields=(("family", ("qwen",)), ("precision", ("fp4",))))
    deepseek = Selector(fields=(("family", ("deepseek",)),))
    assert fp8_qwen.matches(qwen)
    assert not fp4_qwen.matches(qwen)
    assert matches(qwen, (deepseek, fp8_qwen))
    assert not matches(qwen, (deepseek, fp4_qwen))
    assert not matches(qwen, ())


def test_a_case_has_a_suite_and_a_prefix_only_through_its_benchmark_twin(
    fixture: Expanded,
) -> None:
    twin = next(c for c in fixture.catalog.cases if c.id == "deepseek-r1-fp8-tp4")
    alone = next(c for c in fixture.catalog.cases if c.benchmark is None)
    assert (field_value(twin, "suite"), field_value(twin, "prefix")) == (
        "SGLang-OOB",
        "deepseek-r1-fp8-tp4",
    )
    assert (field_value(alone, "suite"), field_value(alone, "prefix")) == (None, None)
