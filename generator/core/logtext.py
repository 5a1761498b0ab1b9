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


def clip(text: str, limit: int = 60) -> str:
    """`text`, cut to `limit` characters with `...` at its end when longer."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


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


_BACKTICKS = re.compile(r"`+")


def md_code(value: object, *, table: bool = False) -> str:
    """`value` as one Markdown code span that nothing in it can leave: one line (as
    `one_line`, so no workflow command either), fenced by one backtick more than its
    longest run of backticks (padded where it starts or ends with one), `|` escaped in a
    table cell. Inside it GitHub renders no mention, link, emphasis or HTML: text from a
    record, a tool or a dispatch input is printed in Markdown through this only."""
    line = one_line(str(value))
    if table:
        line = line.replace("|", "\\|")
    if not line.strip():
        return "` `" if not line else f"`{line}`"
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(line)), default=0) + 1)
    pad = " " if line[0] in "` " or line[-1] in "` " else ""
    return f"{fence}{pad}{line}{pad}{fence}"


# Text that Markdown shows as it is: no emphasis (an `_` only inside a word, where it
# cannot open or close one), link, HTML, mention, entity, escape or code character, and
# no autolink (`www.`, a scheme's `://`), nor what reads as a workflow command (`::`).
_PLAIN = re.compile(r"(?:[A-Za-z0-9 .,;:#()+=%/'-]|(?<=[A-Za-z0-9])_(?=[A-Za-z0-9]))*")
_AUTOLINK = re.compile(r"www\.|:/|::", re.IGNORECASE)


def md_text(value: object, *, table: bool = False) -> str:
    """`value` in running Markdown text: as it is when Markdown would show it so (plain
    words, numbers, paths), else as `md_code` makes it."""
    text = str(value)
    if _PLAIN.fullmatch(text) and not _AUTOLINK.search(text) and text.strip() == text:
        return text
    return md_code(text, table=table)


def md_cell(value: object) -> str:
    """A table cell the caller formatted (its own code spans kept): one line, no
    workflow command, `|` escaped."""
    return one_line(str(value)).replace("|", "\\|")
