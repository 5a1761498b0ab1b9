"""The `sglang-ci` command's own subcommands (generator/cli/sglang_ci.py): render and check
refuse catalogs with a lint error before writing anything, naming the first one. Render's
output and check's drift are tested in tests/acceptance/test_drift.py, lint's findings in
tests/unit/test_lint*.py; the other commands in their groups' tests."""

from __future__ import annotations

import pytest

from tests.helpers import copy_catalogs, edit, snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from tests.conftest import Invoke

BENCH = "catalogs/benchmark.yaml"
OLD = "    env: [deepseek_common, quick_reduce_int4]\n\n  - prefix: deepseek-r1-fp8-tp8\n"
WAIVE = '\n    waive: {L999: "a reason long enough"}\n\n'


@pytest.mark.parametrize("command", ["render", "check"])
def test_a_lint_error_is_refused_before_anything_is_written(
    cli: Invoke, tmp_path: Path, command: str
) -> None:
    root = copy_catalogs(tmp_path)
    edit(root / BENCH, OLD, OLD.replace("\n\n", WAIVE))
    text = (root / BENCH).read_text()
    line = (
        text[: text.index("- prefix: deepseek-r1-fp8-tp4\n")].count("\n") + 1
    )  # the waiver's config
    result = cli(command, root=root)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: {root / BENCH}:{line}: L001 waiver-unknown-rule: waive names unknown rule 'L999'; "
        "docs/lint.md lists the rule ids (1 lint error(s); run `sglang-ci lint`)\n"
    )
    assert snapshot(root) == {}
