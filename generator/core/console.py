"""What the launcher prints to the job log (the tails of log files it echoes: log_tail.py).

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
import secrets
import sys
import threading
import time

from generator.core.logtext import is_command_like

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
