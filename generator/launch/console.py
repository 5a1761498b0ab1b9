"""What the launcher prints to the job log, and the tails of log files it echoes there.

The runner acts on workflow commands in the log (`::error::`, `::add-mask::`,
`::stop-commands::`, ... at the start of a line, `##[...]` anywhere), so nothing from a
tool or from data may be printed as it is: a tool's output (the server's, a client's, the
evaluator's, `hf`'s) is always printed between `::stop-commands::<token>` and `::<token>::`
(`framed`), a fresh random token each time, which the runner reads as "act on no command
until this token"; any other text that holds a line the runner could read as a command is
framed the same way (`say`). One lock keeps a frame whole when two threads print.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import threading
import time

from generator.launch.logtext import is_command_like

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_BLOCK = 64 * 1024
# The most of a log that is read for its tail, and the longest line shown: a tool that
# prints one endless line must not fill the job log or the launcher's memory.
MAX_TAIL_BYTES = 1024 * 1024
MAX_LINE_CHARS = 2000
_LOCK = threading.Lock()


def _print(text: str, *, stderr: bool = False) -> None:
    """Print and flush. A job log that can no longer be written (its pipe closed) must not
    stop the launcher from cleaning up, so that failure is ignored."""
    with contextlib.suppress(OSError, ValueError):
        print(text, file=sys.stderr if stderr else sys.stdout, flush=True)


def token_for(text: str) -> str:
    """A random token that does not occur in `text`."""
    while True:
        token = secrets.token_hex(16)
        if token not in text:
            return token


def framed(text: str, *, stderr: bool = False) -> None:
    """Print `text` between `::stop-commands::<token>` and `::<token>::`: the runner acts
    on no workflow command in it."""
    token = token_for(text)
    with _LOCK:
        _print(f"::stop-commands::{token}\n{text}\n::{token}::", stderr=stderr)


def say(text: str, *, stderr: bool = False) -> None:
    """Print a line (or lines) and flush; framed when the runner could read a workflow
    command in it."""
    if is_command_like(text):
        framed(text, stderr=stderr)
        return
    with _LOCK:
        _print(text, stderr=stderr)


def log(message: str) -> None:
    say(f"[launcher {time.strftime('%H:%M:%S', time.gmtime())}] {message}")


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
