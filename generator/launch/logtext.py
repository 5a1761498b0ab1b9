"""Text bound for a GitHub Actions job log, made safe to print there (standard library
only: the launcher uses it too).

The runner acts on a log line that, once leading whitespace is stripped, starts with `::`
(`::error::`, `::add-mask::`, `::stop-commands::`, ...), and on the older `##[command]`
form anywhere in a line. Text that comes from data (a dispatch input, a catalog value, a
tool's output) must never be read as one: `one_line` makes it a single line that cannot
be, `is_command_like` tells whether a text holds a line that could be.
"""

from __future__ import annotations

import re

# Characters that end a line for someone (C0 and C1 controls, DEL, Unicode line and
# paragraph separators) or make it read as something else (bidirectional controls).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LINES = re.compile(r"\r\n|\r|\n")
_OLD_COMMAND = "##["


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def one_line(text: str) -> str:
    """`text` as one line of printable text: controls, line breaks and bidirectional
    controls escaped (`\\n`, `\\x1b`, `\\u2028`), a leading `::` and every `##[` broken
    (`\\x3a:`, `##\\x5b`), so the runner reads no workflow command in it."""
    line = _UNSAFE.sub(_escape, text).replace(_OLD_COMMAND, "##\\x5b")
    stripped = line.lstrip()
    if stripped.startswith("::"):
        line = line[: len(line) - len(stripped)] + "\\x3a" + stripped[1:]
    return line


def is_command_like(text: str) -> bool:
    """Whether the runner could read a workflow command in `text` printed as it is (it
    splits lines at `\\n`, `\\r` and `\\r\\n`)."""
    if _OLD_COMMAND in text:
        return True
    return any(line.lstrip().startswith("::") for line in _LINES.split(text))
