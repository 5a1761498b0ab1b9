"""`generator.lint.rules.spec`: speculative-decoding flags as SGLang resolves them
(L301-L303, L305)."""

from __future__ import annotations

import pytest

from generator.lint.checks import lint
from tests.helpers import FIXTURE
from tests.lint_helpers import ACC, by_rule, edited, line_of, relinted, with_case

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded
    from generator.lint.findings import LintFinding

SGLANG_CASE = "- id: deepseek-r1-mxfp4-tp4-mtp"


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_eagle3_without_a_draft_model_warns(tmp_path: Path) -> None:
    old = "--speculative-algorithm: EAGLE\n"
    found = lint(edited(tmp_path, (ACC, old, "--speculative-algorithm: EAGLE3\n")))
    assert [(f.severity, f.loc.line, f.message) for f in by_rule(found, "L301")] == [
        (
            "warning",
            line_of(ACC, SGLANG_CASE),
            (
                "case 'deepseek-r1-mxfp4-tp4-mtp' uses --speculative-algorithm EAGLE3 without "
                "--speculative-draft-model-path; SGLang falls back to the model path only for "
                "architectures with a built-in MTP layer: name the draft model"
            ),
        )
    ]


def test_a_deepseek_eagle_case_without_a_draft_model_passes(
    fixture_findings: list[LintFinding],
) -> None:
    assert by_rule(fixture_findings, "L301") == []


def test_a_non_deepseek_model_without_a_draft_model_warns(tmp_path: Path) -> None:
    old = "model: deepseek-r1-mxfp4-preview\n"
    found = lint(edited(tmp_path, (ACC, old, "model: qwen3.5-35b-a3b-fp8\n")))
    assert [f.loc.line for f in by_rule(found, "L301")] == [line_of(ACC, SGLANG_CASE)]


def test_draft_tokens_must_be_steps_plus_one_with_topk_1(tmp_path: Path) -> None:
    old = "--speculative-num-draft-tokens: 4\n        --max-running-requests: 32"
    new = "--speculative-num-draft-tokens: 5\n        --max-running-requests: 32"
    found = lint(edited(tmp_path, (ACC, old, new)))
    assert [f.message for f in by_rule(found, "L302")] == [
        (
            "case 'deepseek-r1-mxfp4-tp4-mtp' sets --speculative-num-draft-tokens 5 with "
            "--speculative-eagle-topk 1 and --speculative-num-steps 3; SGLang silently replaces "
            "it with 4: write 4"
        )
    ]


def test_steps_topk_and_draft_tokens_come_together(tmp_path: Path) -> None:
    old = "        --speculative-eagle-topk: 1\n        --speculative-num-draft-tokens: 4\n"
    found = lint(edited(tmp_path, (ACC, old, "")))
    assert [f.message for f in by_rule(found, "L303")] == [
        (
            "case 'deepseek-r1-mxfp4-tp4-mtp' sets --speculative-num-steps but not "
            "--speculative-eagle-topk, --speculative-num-draft-tokens; SGLang asserts that all "
            "three are given or none (then it chooses them)"
        )
    ]


def test_the_spec_field_must_agree_with_the_speculative_flags(fixture: Expanded) -> None:
    catalog = with_case(fixture.catalog, "deepseek-r1-mxfp4-tp4-mtp", spec="mtp1")
    assert [(f.loc.line, f.message) for f in by_rule(relinted(catalog), "L305")] == [
        (
            line_of(ACC, SGLANG_CASE, FIXTURE),
            (
                "case 'deepseek-r1-mxfp4-tp4-mtp' has spec 'mtp1' but --speculative-num-steps 3; "
                "make the field and the flags agree"
            ),
        )
    ]
