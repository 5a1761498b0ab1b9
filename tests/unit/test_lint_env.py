"""`generator.lint.rules.env`: forbidden (L501), renamed (L502) and retired (L503) env names."""

from __future__ import annotations

import dataclasses

import pytest

from generator.catalog.server_types import EnvVar
from generator.errors import Loc
from generator.lint.checks import lint
from tests.lint_helpers import BENCH, by_rule, edited, line_of, relinted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.catalog.catalog_types import Catalog
    from generator.expand.expanded import Expanded
    from generator.lint.findings import LintFinding


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_a_forbidden_env_var_in_a_fragment_is_one_error(tmp_path: Path) -> None:
    old = "    MORI_SHMEM_MODE: ISOLATION\n"
    found = lint(edited(tmp_path, (BENCH, old, old + '    TP_SIZE: "8"\n')))
    assert [(f.loc.file, f.loc.line, f.severity, f.message) for f in by_rule(found, "L501")] == [
        (
            BENCH,
            line_of(BENCH, 'TP_SIZE: "8"'),
            "error",
            (
                "TP_SIZE must not be set (the launcher and SGLang own it; SPEC.md lists it as "
                "removed): delete it"
            ),
        )
    ]


def test_a_renamed_env_var_names_its_new_name(tmp_path: Path) -> None:
    old = "env: [{ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM: "
    found = lint(edited(tmp_path, (BENCH, old, "env: [{ATOM_USE_FP4_TRITON_GEMM: ")))
    assert len(by_rule(found, "L502")) == 4
    assert {f.message for f in by_rule(found, "L502")} == {
        "ATOM_USE_FP4_TRITON_GEMM was renamed: write ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM instead"
    }


def _with_env(catalog: Catalog, var: EnvVar) -> Catalog:
    config = catalog.configs[0]
    configs = (dataclasses.replace(config, env=(*config.env, var)), *catalog.configs[1:])
    return dataclasses.replace(catalog, configs=configs)


def test_a_clean_env_var_passes(fixture: Expanded, fixture_findings: list[LintFinding]) -> None:
    var = EnvVar(name="GOOD_NAME", value="one line", loc=Loc(BENCH, 7))
    assert [f for f in relinted(_with_env(fixture.catalog, var)) if f.rule.startswith("L50")] == [
        f for f in fixture_findings if f.rule.startswith("L50")
    ]
