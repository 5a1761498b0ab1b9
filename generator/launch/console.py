"""What the launcher prints to the job log, and the tails of log files it echoes there."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

_BLOCK = 64 * 1024


def log(message: str) -> None:
    print(f"[launcher {time.strftime('%H:%M:%S', time.gmtime())}] {message}", flush=True)


def tail(path: Path, lines: int) -> str:
    """The last `lines` lines of a file that may be large, or "" when it cannot be read.
    Undecodable bytes are replaced."""
    try:
        with path.open("rb") as handle:
            end = handle.seek(0, os.SEEK_END)
            start, data = end, b""
            while start > 0 and data.count(b"\n") <= lines:
                start = max(0, start - _BLOCK)
                handle.seek(start)
                data = handle.read(end - start)
    except OSError:
        return ""
    kept = data.decode("utf-8", errors="replace").splitlines()[-lines:]
    return "\n".join(kept)


def echo_tail(path: Path, lines: int, *, banner: str | None = None) -> None:
    """Print the tail of `path`, between banner lines when `banner` names the file."""
    text = tail(path, lines)
    if banner is not None:
        print(f"===== last {lines} lines of {path} =====")
    if text:
        print(text)
    if banner is not None:
        print(f"===== end of {banner} =====")
    sys.stdout.flush()
