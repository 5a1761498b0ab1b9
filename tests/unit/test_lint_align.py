"""`generator.lint.rules.align`: accuracy cases linked to a benchmark config start its server
(L401) and unset only allowed differences (L402)."""

from __future__ import annotations

import dataclasses

import pytest

from generator.lint.checks import lint
from tests.lint_helpers import ACC, by_rule, edited, line_of, relinted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded

EXTRA_ARG = (
    ACC,
    "benchmark: deepseek-r1-fp4-tp4\n",
    'benchmark: deepseek-r1-fp4-tp4\n    args: [{--mem-fraction-static: "0.8"}]\n',
)


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_a_linked_case_with_different_args_fails(tmp_path: Path) -> None:
    found = lint(edited(tmp_path, EXTRA_ARG))
    assert [(f.loc.line, f.message) for f in by_rule(found, "L401")] == [
        (
            line_of(ACC, "- id: deepseek-r1-fp4-tp4"),
            (
                "case 'deepseek-r1-fp4-tp4' starts --mem-fraction-static '0.8' but benchmark "
                "config 'deepseek-r1-fp4-tp4' starts '0.85'; align them or list "
                "--mem-fraction-static under allowed_differences.args"
            ),
        )
    ]


def test_a_listed_arg_difference_passes(tmp_path: Path) -> None:
    allowed = (
        ACC,
        "  env: [AITER_QUICK_REDUCE_QUANTIZATION]\n",
        "  env: [AITER_QUICK_REDUCE_QUANTIZATION]\n  args: [--mem-fraction-static]\n",
    )
    assert by_rule(lint(edited(tmp_path, EXTRA_ARG, allowed)), "L401") == []


def test_unsetting_an_env_var_that_is_not_an_allowed_difference_fails(
    fixture: Expanded,
) -> None:
    found = relinted(dataclasses.replace(fixture.catalog, allowed_env_differences=()))
    l402 = by_rule(found, "L402")
    assert len(l402) == 8  # every linked case that unsets it
    assert l402[0].message == (
        "case 'deepseek-r1-fp8-tp4' unsets AITER_QUICK_REDUCE_QUANTIZATION, which is not an "
        "allowed difference; keep it, or add it to allowed_differences.env with a comment "
        "saying why"
    )
    assert by_rule(found, "L401")[0].message == (
        "case 'deepseek-r1-fp8-tp4' sets AITER_QUICK_REDUCE_QUANTIZATION to nothing but "
        "benchmark config 'deepseek-r1-fp8-tp4' sets 'INT4'; align them or list "
        "AITER_QUICK_REDUCE_QUANTIZATION under allowed_differences.env"
    )
