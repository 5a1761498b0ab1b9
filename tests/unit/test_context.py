"""generator.context: every command's errors as one line and an exit code."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from generator.context import Context, run
from generator.errors import CheckFailed, SelectionError

BUG = "An unexpected error has occurred: KeyError: 'x' (run with --debug for the traceback)\n"


def outcome(error: Exception | None, code: int | None = None) -> tuple[int, str]:
    @click.command()
    @click.pass_context
    def command(ctx: click.Context) -> None:
        ctx.obj = Context(Path(), debug=False)

        def work(_c: Context) -> int | None:
            if error is not None:
                raise error
            return code

        run(ctx, work)

    result = CliRunner().invoke(command, [])
    return result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("error", "code", "expected"),
    [
        (None, None, (0, "")),
        (None, 1, (1, "")),
        (SelectionError("no such\npreset"), None, (2, "error: no such\\npreset\n")),
        (CheckFailed("drift"), None, (1, "error: drift\n")),
        (KeyError("x"), None, (3, BUG)),
    ],
)
def test_an_expected_error_is_one_line_and_a_bug_exits_3(
    error: Exception | None, code: int | None, expected: tuple[int, str]
) -> None:
    assert outcome(error, code) == expected
