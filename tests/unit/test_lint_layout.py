"""`generator.lint.rules.layout`: parallel layouts SGLang refuses (L101, L102) and servers
needing more GPUs than their runner has (L201)."""

from __future__ import annotations

import pytest

from generator.lint.checks import lint
from tests.helpers import FIXTURE
from tests.lint_helpers import (
    ACC,
    BENCH,
    TP4_DP8_EP8,
    by_rule,
    edited,
    line_of,
    relinted,
    with_case,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_the_tp4_dp8_ep8_layout_of_the_original_pull_request_fails_rule_1(
    tmp_path: Path,
) -> None:
    found = lint(edited(tmp_path, TP4_DP8_EP8))
    line = line_of(BENCH, "- prefix: deepseek-r1-fp4-tp8-dp8-ep8")
    config = "config 'deepseek-r1-fp4-tp8-dp8-ep8'"
    assert [(f.loc.line, f.message) for f in by_rule(found, "L101") if f.loc.file == BENCH] == [
        (
            line,
            (
                f"{config} runs TP4 DP8 with --enable-dp-attention, which SGLang refuses at "
                "start-up (tp size must be divisible by dp size): use TP8 DP8 or TP4 with DP4"
            ),
        )
    ]
    assert [f.message for f in by_rule(found, "L102") if f.loc.file == BENCH] == [
        (
            f"{config} runs TP4 with EP8; SGLang builds expert-parallel groups inside the "
            "tensor-parallel group, so the ep size must divide the tp size: use EP4 or a TP "
            "that is a multiple of 8"
        )
    ]
    # The accuracy case linked to it inherits the layout and fails too.
    assert [f.loc.file for f in by_rule(found, "L101")] == [ACC, BENCH]
    assert all(f.severity == "error" and f.waived is None for f in by_rule(found, "L101"))


def test_a_case_needing_more_gpus_than_its_runner_has_fails(fixture: Expanded) -> None:
    catalog = with_case(fixture.catalog, "deepseek-r1-fp4-tp8", runner="linux-atom-mi35x-4")
    assert [(f.loc.line, f.message) for f in by_rule(relinted(catalog), "L201")] == [
        (
            line_of(ACC, "- id: deepseek-r1-fp4-tp8", FIXTURE),
            (
                "case 'deepseek-r1-fp4-tp8' needs 8 GPUs but runner 'linux-atom-mi35x-4' has 4; "
                "pick a runner with at least 8 GPUs or a smaller layout"
            ),
        )
    ]
