"""The one JSON encoder: deterministic text for matrices and command output. A non-finite
number (NaN, Infinity: never valid JSON, which GitHub's and most readers refuse) is written
as null."""

from __future__ import annotations

import json
import math


def finite(value: object) -> object:
    """`value` with every non-finite float replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]
    return value


def dumps(data: object) -> str:
    """Fixed key order as given, UTF-8 as itself, two-space indent, newline at the end."""
    return json.dumps(finite(data), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def compact(data: object) -> str:
    """One line, as the select step outputs a matrix (`jq -c`)."""
    return json.dumps(finite(data), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def compact_size(data: object) -> int:
    """Bytes of `data` as one line of JSON."""
    return len(compact(data).encode())
