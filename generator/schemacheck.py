"""A fast yes or no: does a document satisfy a catalog schema?

jsonschema stays the reference and the only source of error messages. The schemas are
compiled here into plain Python checks that read each keyword exactly as jsonschema's
Draft 2020-12 validator does (no format checker); a document found invalid is handed to
jsonschema, which finds and words the error. A schema using a keyword not handled here
(`contains`, `unevaluatedProperties`, `$dynamicRef`, a nested `$id`, ...) is not compiled,
and jsonschema then checks every document.
"""

from __future__ import annotations

import itertools
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urljoin

Check = Callable[[Any], bool]

# A catalog's mappings and lists are dict and list subclasses (ruamel.yaml's round-trip
# types) whose own methods run in Python; the checks read them through dict's and list's.
_get = dict.get
_keys = dict.__iter__
_elements = list.__iter__
_MISSING = object()

# jsonschema's Draft 2020-12 keywords. Anything else is an annotation it ignores; the ones
# not handled here make a schema unsupported.
KEYWORDS = frozenset((
    "$dynamicRef", "$ref", "additionalProperties", "allOf", "anyOf", "const", "contains",
    "dependentRequired", "dependentSchemas", "enum", "exclusiveMaximum", "exclusiveMinimum",
    "format", "if", "items", "maxItems", "maxLength", "maxProperties", "maximum", "minItems",
    "minLength", "minProperties", "minimum", "multipleOf", "not", "oneOf", "pattern",
    "patternProperties", "prefixItems", "properties", "propertyNames", "required", "type",
    "unevaluatedItems", "unevaluatedProperties", "uniqueItems",
))  # fmt: skip
UNSUPPORTED = frozenset((
    "$dynamicRef", "contains", "dependentRequired", "dependentSchemas", "multipleOf",
    "prefixItems", "unevaluatedItems", "unevaluatedProperties",
))  # fmt: skip


class Unsupported(Exception):
    """The schema uses something this module does not read exactly as jsonschema does."""


def _is_number(v: Any) -> bool:
    return not isinstance(v, bool) and isinstance(v, numbers.Number)


TYPES: dict[str, Check] = {
    "array": lambda v: isinstance(v, list),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "null": lambda v: v is None,
    "number": _is_number,
    "object": lambda v: isinstance(v, dict),
    "string": lambda v: isinstance(v, str),
}


def _unbool(v: Any, true: object = object(), false: object = object()) -> Any:
    return true if v is True else false if v is False else v


def equal(one: Any, two: Any) -> bool:
    """jsonschema's equality: True is not 1, recursively."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, Sequence) and isinstance(two, Sequence):
        return len(one) == len(two) and all(equal(i, j) for i, j in zip(one, two, strict=False))
    if isinstance(one, Mapping) and isinstance(two, Mapping):
        return len(one) == len(two) and all(
            key in two and equal(value, two[key]) for key, value in one.items()
        )
    return bool(_unbool(one) == _unbool(two))


def unique(items: list[Any]) -> bool:
    """jsonschema's uniqueItems: sorted neighbours when they sort, else every pair."""
    try:
        ordered = sorted(_unbool(i) for i in items)
        return not any(equal(i, j) for i, j in itertools.pairwise(ordered))
    except (NotImplementedError, TypeError):
        seen: list[Any] = []
        for item in items:
            item = _unbool(item)
            if any(equal(i, item) for i in seen):
                return False
            seen.append(item)
    return True


class Compiler:
    """Compiles schemas that refer to each other (by `$id`, or a name relative to it)."""

    def __init__(self, schemas: Mapping[str, dict[str, Any]]) -> None:
        self.documents = {schema["$id"]: schema for schema in schemas.values()}
        self.refs: dict[str, Check] = {}

    def compile(self, schema: Any, base: str) -> Check:
        if schema is True:
            return lambda v: True
        if schema is False:
            return lambda v: False
        if not isinstance(schema, dict):
            raise Unsupported(f"schema {schema!r}")
        if "$anchor" in schema or "$dynamicAnchor" in schema:
            raise Unsupported("anchors")
        if "$id" in schema and base and urljoin(base, schema["$id"]) != base:
            raise Unsupported("a nested $id")
        checks = [self._keyword(k, v, schema, base) for k, v in schema.items() if k in KEYWORDS]
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(check(v) for check in checks)

    def _ref(self, ref: str, base: str) -> Check:
        target = urljoin(base, ref)
        if target not in self.refs:
            uri, _, fragment = target.partition("#")
            if uri not in self.documents or (fragment and not fragment.startswith("/")):
                raise Unsupported(f"$ref {ref!r}")
            node: Any = self.documents[uri]
            for part in fragment.split("/")[1:]:
                part = unquote(part).replace("~1", "/").replace("~0", "~")
                if isinstance(node, list):
                    node = node[int(part)]
                elif isinstance(node, dict) and part in node:
                    node = node[part]
                else:
                    raise Unsupported(f"$ref {ref!r}")
            late: list[Check] = []
            self.refs[target] = lambda v: late[0](v)  # a schema may refer to itself
            late.append(self.compile(node, self.documents[uri]["$id"]))
        return self.refs[target]

    def _keyword(self, key: str, value: Any, schema: dict[str, Any], base: str) -> Check:
        if key in UNSUPPORTED:
            raise Unsupported(key)
        sub = self.compile
        if key == "$ref":
            return self._ref(value, base)
        if key == "type":
            names = [value] if isinstance(value, str) else value
            if any(n not in TYPES for n in names):
                raise Unsupported(f"type {value!r}")
            kinds = [TYPES[n] for n in names]
            if len(kinds) == 1:
                return kinds[0]
            return lambda v: any(kind(v) for kind in kinds)
        if key == "properties":
            return self._properties([(name, sub(s, base)) for name, s in value.items()])
        if key == "additionalProperties":
            return self._additional(value, schema, base)
        if key == "patternProperties":
            pats = [(p, sub(s, base)) for p, s in value.items()]
            return lambda v: (
                not isinstance(v, dict)
                or all(c(item) for p, c in pats for k, item in v.items() if re.search(p, k))
            )
        if key == "propertyNames":
            names_ok = sub(value, base)
            return lambda v: not isinstance(v, dict) or all(map(names_ok, _keys(v)))
        if key == "required":
            return lambda v: not isinstance(v, dict) or all(p in v for p in value)
        if key == "items":
            if value is False:
                return lambda v: not isinstance(v, list) or not v
            each = sub(value, base)
            return lambda v: not isinstance(v, list) or all(map(each, _elements(v)))
        if key == "anyOf":
            subs = [sub(s, base) for s in value]
            return lambda v: any(c(v) for c in subs)
        if key == "oneOf":
            subs = [sub(s, base) for s in value]
            return lambda v: sum(1 for c in subs if c(v)) == 1
        if key == "allOf":
            subs = [sub(s, base) for s in value]
            return lambda v: all(c(v) for c in subs)
        if key == "not":
            negated = sub(value, base)
            return lambda v: not negated(v)
        if key == "if":
            return self._if(value, schema, base)
        return _simple(key, value)

    @staticmethod
    def _properties(props: list[tuple[str, Check]]) -> Check:
        def check(v: Any) -> bool:
            if not isinstance(v, dict):
                return True
            for name, valid in props:
                found = _get(v, name, _MISSING)
                if found is not _MISSING and not valid(found):
                    return False
            return True

        return check

    def _additional(self, value: Any, schema: dict[str, Any], base: str) -> Check:
        """As jsonschema's find_additional_properties: not a property, no pattern matches."""
        known = schema.get("properties", {})
        patterns = "|".join(schema.get("patternProperties", {}))

        def extras(v: dict[Any, Any]) -> list[Any]:
            return [
                k for k in _keys(v) if k not in known and not (patterns and re.search(patterns, k))
            ]

        if isinstance(value, dict):
            each = self.compile(value, base)
            return lambda v: not isinstance(v, dict) or all(each(_get(v, k)) for k in extras(v))
        if not value:
            return lambda v: not isinstance(v, dict) or not extras(v)
        return lambda v: True

    def _if(self, value: Any, schema: dict[str, Any], base: str) -> Check:
        test = self.compile(value, base)
        then = self.compile(schema["then"], base) if "then" in schema else None
        otherwise = self.compile(schema["else"], base) if "else" in schema else None

        def check(v: Any) -> bool:
            if test(v):
                return then is None or then(v)
            return otherwise is None or otherwise(v)

        return check


def _simple(key: str, value: Any) -> Check:
    """Keywords that look at one value and need no subschema."""
    if key == "const":
        return lambda v: equal(v, value)
    if key == "enum":
        return lambda v: any(equal(each, v) for each in value)
    if key == "pattern":
        regex = re.compile(value)
        return lambda v: not isinstance(v, str) or regex.search(v) is not None
    if key == "format":
        return lambda v: True  # jsonschema asserts no format without a format checker
    # Each as jsonschema words its failure, negated (so NaN passes a bound as it does there).
    bounds: dict[str, Callable[[Any, Any], bool]] = {
        "minimum": lambda v, b: not (_is_number(v) and v < b),
        "maximum": lambda v, b: not (_is_number(v) and v > b),
        "exclusiveMinimum": lambda v, b: not (_is_number(v) and v <= b),
        "exclusiveMaximum": lambda v, b: not (_is_number(v) and v >= b),
        "minLength": lambda v, b: not (isinstance(v, str) and len(v) < b),
        "maxLength": lambda v, b: not (isinstance(v, str) and len(v) > b),
        "minItems": lambda v, b: not (isinstance(v, list) and len(v) < b),
        "maxItems": lambda v, b: not (isinstance(v, list) and len(v) > b),
        "minProperties": lambda v, b: not (isinstance(v, dict) and len(v) < b),
        "maxProperties": lambda v, b: not (isinstance(v, dict) and len(v) > b),
        "uniqueItems": lambda v, b: not (b and isinstance(v, list) and not unique(v)),
    }
    test = bounds[key]
    return lambda v: test(v, value)


def compile_all(schemas: Mapping[str, dict[str, Any]]) -> dict[str, Check] | None:
    """A check per schema name, or None when any of them is unsupported."""
    compiler = Compiler(schemas)
    try:
        return {name: compiler.compile(s, s["$id"]) for name, s in schemas.items()}
    except (Unsupported, KeyError, ValueError, TypeError, IndexError, re.error):
        return None
