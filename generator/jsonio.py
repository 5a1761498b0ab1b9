"""The one JSON encoder: deterministic text for matrices and command output."""

from __future__ import annotations

import json


def dumps(data: object) -> str:
    """Fixed key order as given, UTF-8 as itself, two-space indent, newline at the end."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def compact(data: object) -> str:
    """One line, as the select step outputs a matrix (`jq -c`)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def compact_size(data: object) -> int:
    """Bytes of `data` as one line of JSON."""
    return len(compact(data).encode())
