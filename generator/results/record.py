"""Result records (schema `sglang-ci/record/1`): find them in a run directory, validate
them against the JSON Schema, and the validity rule for a benchmark point.

Any `*.json` below a run directory whose `schema` is `sglang-ci/record/1` is a record;
other JSON is ignored. A file that claims to be a record and is not one is a Problem: one
line `path: reason`, reported and skipped, never fatal.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from generator.errors import SglangCIError

SCHEMA_ID = "sglang-ci/record/1"
SCHEMA_FAMILY = "sglang-ci/record/"
SCHEMA_FILE = "schemas/record-1.schema.json"
SPEC_NONE = "none"
# Metrics a valid point must have (the launcher applies the same rule).
REQUIRED_POINT_METRICS = (
    "output_throughput",
    "median_ttft_ms",
    "median_tpot_ms",
    "total_token_throughput",
)
INFRASTRUCTURE = "infrastructure error"


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


def _no_constant(name: str) -> float:
    raise ValueError(f"non-finite number {name} (write null)")


def problem_of(data: Any) -> str | None:
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
        data = json.loads(path.read_bytes(), parse_constant=_no_constant)
    except (OSError, UnicodeDecodeError) as e:
        return None, Problem(str(path), f"cannot read: {e}")
    except ValueError as e:
        return None, Problem(str(path), f"not valid JSON: {e}")
    if not isinstance(data, dict):
        return None, None
    tag = data.get("schema")
    if not (isinstance(tag, str) and tag.startswith(SCHEMA_FAMILY)):
        return None, None
    reason = problem_of(data)
    return (None, Problem(str(path), reason)) if reason else (data, None)


def is_infrastructure(reason: str | None, error: str | None) -> bool:
    """The record failed for the infrastructure (runner, network, registry), not for the
    server: its validity reason or its error starts with `infrastructure`."""
    return any((text or "").startswith("infrastructure") for text in (reason, error))


def is_mtp(spec: str | None) -> bool:
    """A speculative-decoding (MTP) server."""
    return spec is not None and spec != SPEC_NONE


def needs_acceptance(spec: str | None, osl: int | None = None) -> bool:
    """An MTP server reports an acceptance length once it has decoded; a point of one
    output token decodes nothing."""
    return is_mtp(spec) and (osl is None or osl > 1)


def point_validity(
    *,
    status: str,
    completed: int | None,
    num_prompts: int,
    metrics: Mapping[str, float | None],
    spec: str | None,
    osl: int,
    restarted: bool = False,
    infrastructure: str | None = None,
) -> tuple[bool, str | None]:
    """Whether a point's numbers may stand for its server, and why not.

    The first rule that applies gives the reason: an infrastructure error; a status other
    than `ok`; a server restart during the point; fewer requests completed than sent; a
    required metric (REQUIRED_POINT_METRICS) missing or non-finite; an MTP point (spec not
    `none`, more than one output token) without an acceptance length."""
    if infrastructure:
        return False, f"{INFRASTRUCTURE}: {infrastructure}"
    if status != "ok":
        return False, f"status {status}"
    if restarted:
        return False, "the server restarted during the point"
    if completed != num_prompts:
        return False, f"{completed} of {num_prompts} requests completed"
    bad = [key for key in REQUIRED_POINT_METRICS if _not_finite(metrics.get(key))]
    if bad:
        return False, f"non-finite or missing {', '.join(bad)}"
    if needs_acceptance(spec, osl) and _not_finite(metrics.get("accept_length")):
        return False, "no acceptance length from a speculative-decoding server"
    return True, None


def _not_finite(value: float | None) -> bool:
    return value is None or value != value or value in (float("inf"), float("-inf"))
