"""Helpers shared by the stand-in modules (standard library only)."""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

DEFAULT_VERSION = "0.5.23"
# Everything the stand-ins talk to is on this machine: any other host fails at once the way
# a name that does not resolve fails (e.g. the "http" of "http://http://127.0.0.1:30000").
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def version() -> str:
    """The SGLang version the stand-in plays: $SGLANG_STANDIN_VERSION, else the newest."""
    return os.environ.get("SGLANG_STANDIN_VERSION") or DEFAULT_VERSION


def version_tuple(text: str | None = None) -> tuple[int, ...]:
    """The leading numbers of a version: '0.5.8.post1' -> (0, 5, 8)."""
    match = re.match(r"v?(\d+(?:\.\d+)*)", text if text is not None else version())
    return tuple(int(n) for n in match[1].split(".")) if match else ()


def print_injected() -> None:
    """Print $SGLANG_STANDIN_PRINT as it is (a tool's output can hold any text, workflow
    commands such as `::error::` included)."""
    text = os.environ.get("SGLANG_STANDIN_PRINT")
    if text:
        print(text, flush=True)


def note_pid() -> None:
    """Append this process id to $SGLANG_STANDIN_PIDS so tests can prove it is gone."""
    path = os.environ.get("SGLANG_STANDIN_PIDS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")


def note_client(tool: str, argv: list[str] | None = None, **extra: Any) -> None:
    """Record a client start: pid file, plus {"tool", "argv", "cwd", "pid", ...} in
    $SGLANG_STANDIN_CLIENT_RECORD (one JSON line per run). `argv` defaults to the
    arguments after the program (sys.argv[1:])."""
    note_pid()
    path = os.environ.get("SGLANG_STANDIN_CLIENT_RECORD")
    if path:
        line = {
            "tool": tool,
            "argv": sys.argv[1:] if argv is None else argv,
            "cwd": str(Path.cwd()),
            "pid": os.getpid(),
            **extra,
        }
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def http_json(
    url: str, payload: dict[str, Any] | None = None, timeout: float = 30.0
) -> dict[str, Any]:
    """GET (payload None) or POST JSON; return the decoded JSON object. A URL without an
    http scheme fails in urllib ('unknown url type'), a host off this machine as a name
    that does not resolve; both raise URLError."""
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(
        url,
        data=data,
        method="GET" if payload is None else "POST",
        headers={"Content-Type": "application/json"},
    )
    parts = urllib.parse.urlsplit(url)
    if parts.scheme in ("http", "https") and parts.hostname not in LOOPBACK:
        msg = f"[Errno -2] Name or service not known: {parts.hostname!r}"
        raise urllib.error.URLError(msg)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body: Any = json.loads(response.read().decode("utf-8") or "{}")
    if not isinstance(body, dict):
        msg = f"{url}: expected a JSON object"
        raise ValueError(msg)
    return body


RequestError = (urllib.error.URLError, OSError, ValueError)
