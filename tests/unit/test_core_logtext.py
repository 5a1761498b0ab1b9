"""Text made safe for a job log: one line, no workflow command."""

from __future__ import annotations

import pytest

from generator.core.logtext import clip, is_command_like, one_line


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("plain text", "plain text"),
        ("a\nb", "a\\nb"),
        ("a\r\nb\tc", "a\\r\\nb\\tc"),
        ("::error::x", "\\x3a:error::x"),
        ("  ::warning title=t::x", "  \\x3a:warning title=t::x"),
        ("x::error::y", "x::error::y"),
        ("see ##[error]here", "see ##\\x5berror]here"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("a\u2028b\u2029c\x85d", "a\\u2028b\\u2029c\\x85d"),
        ("right\u202eto left", "right\\u202eto left"),
    ],
)
def test_one_line_escapes_breaks_controls_and_command_starts(text: str, line: str) -> None:
    assert one_line(text) == line
    assert not is_command_like(one_line(text))


@pytest.mark.parametrize(
    ("text", "command"),
    [
        ("ok\nstill ok", False),
        ("::error::x", True),
        ("ok\n   ::add-mask::secret", True),
        ("ok\r::set-output name=x::y", True),
        ("ok ##[warning]x", True),
        ("key::value in the middle", False),
    ],
)
def test_a_command_is_found_on_any_line_the_runner_splits(text: str, command: bool) -> None:
    assert is_command_like(text) is command


def test_a_long_text_is_clipped_to_its_limit_with_an_ellipsis() -> None:
    assert clip("abcdef", 5) == "ab..."
    assert clip("abcde", 5) == "abcde"
