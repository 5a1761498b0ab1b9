"""Helpers shared by the stand-in modules (standard library only)."""

from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any


def note_pid() -> None:
    """Append this process id to $SGLANG_STANDIN_PIDS so tests can prove it is gone."""
    path = os.environ.get("SGLANG_STANDIN_PIDS")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")


def note_client(tool: str) -> None:
    """Record a client start: pid file, plus {"tool", "argv", "cwd", "pid"} in
    $SGLANG_STANDIN_CLIENT_RECORD (one JSON line per run)."""
    note_pid()
    path = os.environ.get("SGLANG_STANDIN_CLIENT_RECORD")
    if path:
        line = {"tool": tool, "argv": sys.argv[1:], "cwd": os.getcwd(), "pid": os.getpid()}
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def http_json(
    url: str, payload: dict[str, Any] | None = None, timeout: float = 30.0
) -> dict[str, Any]:
    """GET (payload None) or POST JSON; return the decoded JSON object."""
    data = None if payload is None else json.dumps(payload).encode("utf-8")
    request = urllib.request.Request(
        url,
        data=data,
        method="GET" if payload is None else "POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body: Any = json.loads(response.read().decode("utf-8") or "{}")
    if not isinstance(body, dict):
        raise ValueError(f"{url}: expected a JSON object")
    return body


RequestError = (urllib.error.URLError, OSError, ValueError)
