"""Schema validation with jsonschema (draft 2020-12); errors name file and line."""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable

from generator.catalog.schema_messages import describe
from generator.catalog.yamlio import dotted, line_of
from generator.errors import CatalogError, Loc, did_you_mean

SCHEMAS = ("benchmark", "accuracy")


@functools.cache
def schema_of(name: str) -> dict[str, Any]:
    """The JSON Schema `schemas/<name>.schema.json`."""
    text = resources.files("generator.catalog").joinpath(f"schemas/{name}.schema.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def _registry() -> Registry[Any]:
    """Both schemas, which refer to each other."""
    registry: Registry[Any] = Registry()
    for other in SCHEMAS:
        schema = schema_of(other)
        resource = Resource.from_contents(schema)
        registry = registry.with_resource(f"{other}.schema.json", resource)
        registry = registry.with_resource(schema["$id"], resource)
    return registry


@functools.cache
def validator(name: str) -> Draft202012Validator:
    """The validator for one catalog kind."""
    return Draft202012Validator(schema_of(name), registry=_registry())


def _nested(name: str, key: str, properties: dict[str, Any]) -> str:
    """` (did you mean 'parallel.tp'?)` when `key` belongs in one of the mappings the
    object takes (a key written one level too high), else ``."""
    for parent, schema in properties.items():
        sub, resolver = schema, _registry().resolver(base_uri=schema_of(name)["$id"])
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
    message = describe(error)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = error.schema.get("properties", {})
        extra = [k for k in error.instance if k not in allowed]
        if extra:
            path.append(extra[0])
            key = str(extra[0])
            hint = did_you_mean(key, allowed) or _nested(name, key, allowed)
            message = f"unknown key '{key}'{hint}"
    msg = f"{dotted(path)}: {message}" if path else message
    raise CatalogError(msg, Loc(shown, line_of(doc, path)))
