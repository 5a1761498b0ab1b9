"""Result records (schema `sglang-ci/record/1`): find them in a run directory and validate
them against the JSON Schema. The record's rules (validity, required metrics, the
acceptance need, the schema id, the infrastructure words) are the launcher's, in
generator/core/record_rules.py, imported here.

Any `*.json` below a run directory whose `schema` is `sglang-ci/record/1` is a record;
other JSON is ignored. A file that claims to be a record and is not one is a Problem: one
line `path: reason`, reported and skipped, never fatal.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, TypeVar

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from generator.core import jsonread
from generator.core.record_rules import (
    INFRASTRUCTURE,
    SCHEMA,
    SCHEMA_FAMILY,
    SPEC_NONE,
    is_infrastructure,
    is_mtp,
    needs_acceptance,
    point_validity,
)
from generator.errors import SglangCIError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

SCHEMA_ID = SCHEMA
SCHEMA_FILE = "schemas/record-1.schema.json"
__all__ = [
    "INFRASTRUCTURE",
    "SCHEMA_FAMILY",
    "SCHEMA_ID",
    "SPEC_NONE",
    "Problem",
    "ResultsError",
    "is_infrastructure",
    "is_mtp",
    "needs_acceptance",
    "point_validity",
    "problem_of",
    "read_record",
]


class ResultsError(SglangCIError):
    """A results command cannot run on its input: no such directory, no record (exit 2)."""

    return_code = 2


@dataclass(frozen=True)
class Problem:
    """A file that is not a valid record: printed as `path: reason`."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


@functools.cache
def schema() -> dict[str, Any]:
    text = resources.files("generator.results").joinpath(SCHEMA_FILE).read_text()
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def _validators() -> dict[str, Draft202012Validator]:
    """One validator per shape of the schema's `oneOf`, keyed by its `kind`: a record is
    checked against its own shape, so the error names the field, not the `oneOf`."""
    return {
        str(shape["properties"]["kind"]["const"]): Draft202012Validator(shape)
        for shape in schema()["oneOf"]
    }


def problem_of(data: Mapping[str, Any]) -> str | None:
    """Why `data` (a parsed JSON object tagged as a record) is not a valid record."""
    if data.get("schema") != SCHEMA_ID:
        return f"unsupported record schema {data.get('schema')!r} (this reads {SCHEMA_ID!r})"
    validators = _validators()
    kind = data.get("kind")
    if kind not in validators:
        return f"kind: {kind!r} is not one of {sorted(validators)}"
    error = best_match(validators[str(kind)].iter_errors(data))
    if error is None:
        return None
    where = error.json_path.removeprefix("$.").removeprefix("$")
    return f"{where or 'record'}: {error.message}"


def read_record(path: Path) -> tuple[dict[str, Any] | None, Problem | None]:
    """(record, None) for a valid record; (None, problem) for a broken one; (None, None)
    for a file that is not a record at all (other JSON)."""
    try:
        data = jsonread.load(path)
    except OSError as e:
        return None, Problem(str(path), f"cannot read: {e.strerror or e}")
    except jsonread.JsonRefused as e:
        return None, Problem(str(path), str(e))
    if not isinstance(data, dict):
        return None, None
    tag = data.get("schema")
    if not (isinstance(tag, str) and tag.startswith(SCHEMA_FAMILY)):
        return None, None
    reason = problem_of(data)
    return (None, Problem(str(path), reason)) if reason else (data, None)


_Item = TypeVar("_Item")


def latest_attempts(
    found: Iterable[tuple[_Item, Mapping[str, Any]]],
) -> tuple[list[_Item], list[_Item]]:
    """Of items carrying records, those whose record is its point's or case's latest (a job
    run again by "Re-run failed jobs" uploads its records again, under its attempt's
    artifact), in their order, and those a later attempt superseded."""
    items = list(found)
    best: dict[tuple[str, str], tuple[int, int]] = {}
    for index, (_, record) in enumerate(items):
        key = (str(record.get("kind")), str(record.get("id")))
        github = (record.get("provenance") or {}).get("github") or {}
        text = str(github.get("run_attempt") or "")
        attempt = int(text) if text.isdigit() else 0
        if key not in best or attempt >= best[key][0]:
            best[key] = (attempt, index)
    chosen = {index for _, index in best.values()}
    kept = [item for index, (item, _) in enumerate(items) if index in chosen]
    superseded = [item for index, (item, _) in enumerate(items) if index not in chosen]
    return kept, superseded
