"""Schema validation with jsonschema (draft 2020-12); errors name file and line."""

from __future__ import annotations

import functools
import json
import re
from importlib import resources
from typing import Any, cast

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from generator.catalog.yamlio import line_of
from generator.errors import CatalogError, Loc, did_you_mean

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

SCHEMAS = ("benchmark", "accuracy")


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    text = resources.files("generator.catalog").joinpath(f"schemas/{name}.schema.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def _registry() -> Registry[Any]:
    """Both schemas, which refer to each other."""
    registry: Registry[Any] = Registry()
    for other in SCHEMAS:
        schema = _schema(other)
        resource = Resource.from_contents(schema)
        registry = registry.with_resource(f"{other}.schema.json", resource)
        registry = registry.with_resource(schema["$id"], resource)
    return registry


@functools.cache
def validator(name: str) -> Draft202012Validator:
    """The validator for one catalog kind."""
    return Draft202012Validator(_schema(name), registry=_registry())


def _nested(name: str, key: str, properties: dict[str, Any]) -> str:
    """` (did you mean 'parallel.tp'?)` when `key` belongs in one of the mappings the
    object takes (a key written one level too high), else ``."""
    for parent, schema in properties.items():
        sub, resolver = schema, _registry().resolver(base_uri=_schema(name)["$id"])
        try:
            while isinstance(sub, dict) and "$ref" in sub:
                resolved = resolver.lookup(sub["$ref"])
                sub, resolver = resolved.contents, resolved.resolver
        except Unresolvable:
            continue
        if isinstance(sub, dict) and key in sub.get("properties", {}):
            return f" (did you mean '{parent}.{key}'?)"
    return ""


def validate(name: str, doc: object, shown: str) -> None:
    """Raise CatalogError for the most relevant schema violation, if any."""
    error = best_match(validator(name).iter_errors(doc))
    if error is None:
        return
    path = list(error.absolute_path)
    if "propertyNames" in error.relative_schema_path and isinstance(error.instance, str):
        path.append(error.instance)  # point at the offending key itself
    message = _describe(error)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        extra = [k for k in error.instance if k not in allowed]
        if extra:
            path.append(extra[0])
            key = str(extra[0])
            hint = did_you_mean(key, allowed) or _nested(name, key, allowed)
            message = f"unknown key '{key}'{hint}"
    msg = f"{_where(path)}{message}"
    raise CatalogError(msg, Loc(shown, line_of(doc, path)))


def _where(path: Sequence[str | int]) -> str:
    if not path:
        return ""
    text = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
    return text.lstrip(".") + ": "


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


def _describe(error: ValidationError) -> str:
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
