"""The tail of a tool's log file, read within bounds, and echoed framed to the job log."""

from __future__ import annotations

import os

from generator.core.console import framed, say

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_BLOCK = 64 * 1024
# The most of a log that is read for its tail, and the longest line shown: a tool that
# prints one endless line must not fill the job log or the launcher's memory.
MAX_TAIL_BYTES = 1024 * 1024
MAX_LINE_CHARS = 2000


def tail(path: Path, lines: int) -> str:
    """The last `lines` lines of a file that may be large, or "" when it cannot be read.
    At most MAX_TAIL_BYTES are read; undecodable bytes are replaced and each line is cut
    at MAX_LINE_CHARS characters."""
    try:
        with path.open("rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            start, data = end, b""
            while start > 0 and data.count(b"\n") <= lines and end - start < MAX_TAIL_BYTES:
                start = max(0, start - _BLOCK, end - MAX_TAIL_BYTES)
                handle.seek(start)
                data = handle.read(end - start)
    except OSError:
        return ""
    kept = data.decode("utf-8", errors="replace").splitlines()[-lines:]
    return "\n".join(_clip(line) for line in kept)


def _clip(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}... ({len(line) - MAX_LINE_CHARS} more characters)"


def echo_tail(path: Path, lines: int, *, banner: str | None = None) -> None:
    """Print the tail of `path` (a tool's output), framed, between banner lines when
    `banner` names the file."""
    text = tail(path, lines)
    if banner is not None:
        say(f"===== last {lines} lines of {path} =====")
    if text:
        framed(text)
    if banner is not None:
        say(f"===== end of {banner} =====")
