"""`generator.lint.rules.identity`: unique display names, case names and dashboard models
(L603, L604), one spelling per model path (L605), fragments in use (L606)."""

from __future__ import annotations

import dataclasses

import pytest

from generator.errors import Loc
from generator.lint.checks import lint
from tests.helpers import FIXTURE
from tests.lint_helpers import ACC, BENCH, by_rule, edited, line_of, relinted, with_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded
    from generator.lint.findings import LintFinding


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_repeated_display_names_case_names_and_dashboard_models_fail(fixture: Expanded) -> None:
    catalog = fixture.catalog
    twin = dataclasses.replace(
        catalog.configs[0], prefix="twin", preset="twin", loc=Loc(BENCH, 999)
    )
    case = dataclasses.replace(catalog.cases[0], id="twin-case", loc=Loc(ACC, 999))
    found = relinted(
        dataclasses.replace(catalog, configs=(*catalog.configs, twin), cases=(*catalog.cases, case))
    )
    first, first_case = catalog.configs[0].loc.line, catalog.cases[0].loc.line
    assert [(f.loc, f.message) for f in by_rule(found, "L603")] == [
        (
            Loc(ACC, 999),
            f"case name 'DeepSeek-R1-FP8 TP4' is already used at line {first_case}; rename one",
        ),
        (
            Loc(BENCH, 999),
            (
                f"display name 'DeepSeek-R1-0528 FP8 TP4' is already used at line {first}; "
                "dropdowns and summaries show it: rename one"
            ),
        ),
    ]
    assert [(f.loc, f.message) for f in by_rule(found, "L604")] == [
        (
            Loc(BENCH, 999),
            (
                f"dashboard model 'DeepSeek-R1-0528-tp4' is already used at line {first}; "
                "two configs would share a dashboard series: rename one"
            ),
        )
    ]


def test_a_repeated_display_name_fails(fixture: Expanded) -> None:
    catalog = with_config(
        fixture.catalog, "deepseek-r1-fp8-tp8", display="DeepSeek-R1-0528 FP8 TP4"
    )
    assert [(f.loc.line, f.message) for f in by_rule(relinted(catalog), "L603")] == [
        (
            line_of(BENCH, "- prefix: deepseek-r1-fp8-tp8", FIXTURE),
            (
                "display name 'DeepSeek-R1-0528 FP8 TP4' is already used at line "
                f"{line_of(BENCH, '- prefix: deepseek-r1-fp8-tp4', FIXTURE)}; dropdowns and "
                "summaries show it: rename one"
            ),
        )
    ]


def test_a_repeated_dashboard_model_fails(fixture: Expanded) -> None:
    catalog = with_config(
        fixture.catalog, "deepseek-r1-fp8-tp8", dashboard_model="DeepSeek-R1-0528-tp4"
    )
    assert [f.loc.line for f in by_rule(relinted(catalog), "L604")] == [
        line_of(BENCH, "- prefix: deepseek-r1-fp8-tp8", FIXTURE)
    ]


def test_a_second_spelling_of_a_model_path_fails(tmp_path: Path) -> None:
    models = "models:\n  qwen3.5-35b-a3b-fp8:\n"
    upper = "models:\n  fp4-upper:\n    path: amd/DeepSeek-R1-0528-MXFP4-V2\n"
    upper += "    family: deepseek\n    precision: fp4\n  qwen3.5-35b-a3b-fp8:\n"
    use = (
        "model: deepseek-r1-fp4-mtp-moefp4\n    parallel: {tp: 8}\n    args: [trust",
        "model: fp4-upper\n    parallel: {tp: 8}\n    args: [trust",
    )
    found = lint(edited(tmp_path, (ACC, models, upper), (ACC, *use)))
    assert [(f.loc.file, f.loc.line, f.message) for f in by_rule(found, "L605")] == [
        (
            ACC,
            line_of(ACC, "fp4-upper:"),
            (
                "model path 'amd/DeepSeek-R1-0528-MXFP4-V2' is also spelled "
                "'amd/DeepSeek-R1-0528-MXFP4-v2'; use one spelling"
            ),
        )
    ]


def test_an_unused_fragment_warns(tmp_path: Path) -> None:
    old = "args:\n  trust_remote_code:\n"
    new = "args:\n  unused_metrics:\n    --enable-metrics: true\n  trust_remote_code:\n"
    found = lint(edited(tmp_path, (BENCH, old, new)))
    assert [(f.severity, f.loc.line, f.message) for f in by_rule(found, "L606")] == [
        (
            "warning",
            line_of(BENCH, "unused_metrics:"),
            "args fragment 'unused_metrics' is used by no config or case; use it or delete it",
        )
    ]


def test_every_fixture_fragment_is_used(fixture_findings: list[LintFinding]) -> None:
    assert by_rule(fixture_findings, "L606") == []
