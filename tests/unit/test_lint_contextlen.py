"""`generator.lint.rules.contextlen`: a --context-length above the model's declared maximum,
which SGLang refuses to start with unless its env allows it (L804)."""

from __future__ import annotations

import pytest

from generator.lint.checks import lint
from tests.helpers import copy_catalogs, edit, expanded_at
from tests.lint_helpers import ACC

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

PREVIEW = """    path: amd/DeepSeek-R1-MXFP4-Preview
    family: deepseek
    precision: fp4
    params_b: 671
"""


@pytest.mark.parametrize(
    ("override", "refused"),
    [
        ("", True),
        ('SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: "1"', False),
        ('SGLANG_IS_IN_CI: "true"', False),
        ('SGLANG_IS_IN_CI: "0"', True),
    ],
    ids=["none", "allow-overwrite", "in-ci", "in-ci-off"],
)
def test_lint_refuses_a_context_longer_than_the_model_s_unless_sglang_is_told_to_allow_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, override: str, refused: bool
) -> None:
    root = copy_catalogs(tmp_path)
    edit(root / ACC, PREVIEW, PREVIEW + "    max_context_length: 163840\n")
    if override:
        edit(
            root / ACC,
            '      - SGLANG_USE_AITER: "1"\n',
            f'      - SGLANG_USE_AITER: "1"\n        {override}\n',
        )
    monkeypatch.chdir(root)
    found = [
        (f.loc.file, f.loc.line, f.message) for f in lint(expanded_at(root)) if f.rule == "L804"
    ]
    lines = (root / ACC).read_text(encoding="utf-8").splitlines()
    line = next(n for n, t in enumerate(lines, 1) if "--context-length: 200000" in t)
    assert found == (
        [
            (
                ACC,
                line,
                (
                    "case 'deepseek-r1-mxfp4-tp4-mtp': --context-length 200000 is above "
                    "amd/DeepSeek-R1-MXFP4-Preview's maximum of 163840; SGLang refuses to start "
                    "unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (or SGLANG_IS_IN_CI=1, as "
                    "SGLang's CI sets) is in the server's env: set one, or lower the length"
                ),
            )
        ]
        if refused
        else []
    )
