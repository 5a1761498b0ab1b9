"""What a schema violation says: the value as it reads, the bound or pattern it breaks."""

from __future__ import annotations

import json
import re
from typing import cast

TYPE_CHECKING = False
if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError


SINGLE_LINE = (
    "^[^\\u0000-\\u001f\\u007f\\u0085\\u2028\\u2029\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]*$"
)
_INVISIBLE = re.compile("[\u0085\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
PATTERNS = {
    "^[0-9a-f]{40}$": "is not a Hugging Face commit (40 lowercase hexadecimal digits)",
    "^[1-9][0-9]{0,8}x[1-9][0-9]{0,8}$": (
        "is not an ISLxOSL pair like 8192x1024 (at most 9 digits each)"
    ),
    "^[A-Za-z_][A-Za-z0-9_]*$": "is not a valid environment variable name",
    SINGLE_LINE: (
        "must be one line of printable text (no control character, line or paragraph "
        "separator, or bidirectional control)"
    ),
    "^--[a-z0-9][a-z0-9-]*$": "is not a flag like --page-size",
    "^[a-z][a-z0-9_]*$": "is not a fragment name (lower case, digits, _)",
    "^[a-z0-9][a-z0-9._-]*$": "is not a name (lower case, digits, '.', '_', '-')",
    "^[A-Za-z0-9][A-Za-z0-9._-]*$": "is not a label (letters, digits, '.', '_', '-')",
    "^[a-z0-9][a-z0-9._/:*-]*$": "is not an image pattern like lmsysorg/sglang-rocm*",
    "^[a-z0-9][a-z0-9.-]*(:[0-9]+)?(/[a-z0-9][a-z0-9._-]*)+$": (
        "is not an image repository with its registry, like docker.io/rocm/atom-dev"
    ),
}


def describe(error: ValidationError) -> str:
    kind = error.validator
    value = error.instance
    if kind == "type":  # the keyword's value: a type name or a list of them
        types = _type_names(cast("str | list[str]", error.validator_value))
        return f"expected {types}, found {_type_of(value)} {_show(value)}"
    if kind == "required":
        return str(error.message).replace("is a required property", "is required")
    if kind == "pattern":
        known = PATTERNS.get(str(error.validator_value))
        if known:
            return f"{_show(value)} {known}"
        return f"{_show(value)} does not match the pattern {error.validator_value}"
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        bound = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
        return f"{_show(value)} must be {bound[str(kind)]} {error.validator_value}"
    if kind in ("maxItems", "maxProperties", "maxLength") and isinstance(value, (str, list, dict)):
        # The value itself may be megabytes: its size and the bound, never the value.
        unit = "characters" if kind == "maxLength" else "entries"
        return f"{len(value):,} {unit}; at most {error.validator_value:,}"
    if kind in ("anyOf", "oneOf") and isinstance(value, str):
        return f"{_show(value)} is not valid here"
    return str(error.message)


def _type_names(types: str | list[str]) -> str:
    names = {
        "object": "a mapping",
        "array": "a list",
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
        "null": "nothing",
    }
    if isinstance(types, str):
        return names.get(types, types)
    return " or ".join(names.get(t, t) for t in types)


def _type_of(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, dict):
        return "mapping"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "nothing" if value is None else type(value).__name__


def _show(value: object) -> str:
    if isinstance(value, (dict, list)):
        return ""
    text = json.dumps(value, ensure_ascii=False, default=str)
    # Line breaks YAML reads as such, and bidirectional controls, shown escaped: an
    # error stays one line that reads as what it is.
    text = _INVISIBLE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)
    return text if len(text) <= 60 else text[:57] + "..."
