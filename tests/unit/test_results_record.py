from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from generator.core import record_rules as launch_record
from generator.core.record_rules import point_validity
from generator.results import record
from generator.results.record import problem_of, read_record, schema
from tests.results_gen import Point, Run, Shape, case_record, point_record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

RUN = Run(day=3)
MTP = Point(config="ds-mtp", spec="mtp", draft_tokens=3)


@pytest.fixture(scope="session")
def validator() -> Draft202012Validator:
    Draft202012Validator.check_schema(schema())
    return Draft202012Validator(schema())


GENERATED = {
    "point": point_record(RUN, Point()),
    "mtp point": point_record(RUN, MTP),
    "failed point": point_record(RUN, Point(), Shape(status="failed")),
    "short point": point_record(RUN, Point(), Shape(completed_short=3)),
    "case": case_record(RUN),
    "mtp case": case_record(
        RUN, spec="mtp", draft_tokens=3, accept_length=2.5, min_acceptance_rate=0.3
    ),
    "error case": case_record(RUN, score=None, status="error"),
}


@pytest.mark.parametrize("name", GENERATED)
def test_generated_records_follow_the_schema(validator: Draft202012Validator, name: str) -> None:
    record = GENERATED[name]
    assert list(validator.iter_errors(record)) == []
    assert problem_of(record) is None


def test_a_short_or_failed_point_is_invalid_with_its_reason() -> None:
    assert GENERATED["short point"]["validity"] == {
        "valid": False,
        "reason": "37 of 40 requests completed",
    }
    assert GENERATED["failed point"]["validity"] == {"valid": False, "reason": "status failed"}


def _validity(**changes: Any) -> tuple[bool, str | None]:
    metrics: dict[str, float | None] = {
        "output_throughput": 1.0,
        "median_ttft_ms": 1.0,
        "median_tpot_ms": 1.0,
        "total_token_throughput": 1.0,
        "accept_length": 2.0,
    }
    metrics.update(changes.pop("metrics", {}))
    args: dict[str, Any] = {
        "status": "ok",
        "completed": 10,
        "num_prompts": 10,
        "metrics": metrics,
        "spec": "none",
        "osl": 1024,
        **changes,
    }
    return point_validity(**args)


def test_the_validity_rule_gives_the_first_reason_that_applies() -> None:
    assert _validity() == (True, None)
    assert _validity(infrastructure="runner lost") == (
        False,
        "infrastructure error: runner lost",
    )
    assert _validity(status="timeout") == (False, "status timeout")
    assert _validity(restarted=True) == (False, "the server restarted during the point")
    assert _validity(completed=9) == (False, "9 of 10 requests completed")
    assert _validity(metrics={"median_ttft_ms": float("nan")}) == (
        False,
        "non-finite or missing median_ttft_ms",
    )
    assert _validity(spec="mtp", metrics={"accept_length": None}) == (
        False,
        "no acceptance length from a speculative-decoding server",
    )
    assert _validity(spec="mtp", osl=1, metrics={"accept_length": None}) == (True, None)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "r.json"
    path.write_text(text)
    return path


def test_a_broken_record_is_one_line_naming_the_field(tmp_path: Path) -> None:
    record = point_record(RUN, Point())
    del record["metrics"]["median_ttft_ms"]
    _, problem = read_record(_write(tmp_path, json.dumps(record)))
    assert str(problem) == f"{tmp_path}/r.json: metrics: 'median_ttft_ms' is a required property"


def test_a_non_finite_number_or_broken_json_is_a_problem(tmp_path: Path) -> None:
    record = point_record(RUN, Point())
    record["metrics"]["median_ttft_ms"] = float("nan")
    _, problem = read_record(_write(tmp_path, json.dumps(record)))
    assert problem is not None
    assert problem.reason == "non-finite number NaN (write null)"
    _, problem = read_record(_write(tmp_path, "{"))
    assert problem is not None
    assert problem.reason.startswith("not valid JSON: Expecting property name")


def test_other_json_is_ignored_and_another_schema_version_reported(tmp_path: Path) -> None:
    assert read_record(_write(tmp_path, '{"results": {}}')) == (None, None)
    assert read_record(_write(tmp_path, "[1, 2]")) == (None, None)
    _, problem = read_record(_write(tmp_path, '{"schema": "sglang-ci/record/2"}'))
    assert problem is not None
    assert problem.reason == (
        "unsupported record schema 'sglang-ci/record/2' (this reads 'sglang-ci/record/1')"
    )


def test_an_unknown_kind_is_named() -> None:
    record = {**point_record(RUN, Point()), "kind": "sweep"}
    assert problem_of(record) == "kind: 'sweep' is not one of ['case', 'point']"


def test_the_results_record_rules_are_the_launchers() -> None:
    for name in ("point_validity", "needs_acceptance", "is_infrastructure", "is_mtp"):
        assert getattr(record, name) is getattr(launch_record, name)
    assert (record.SCHEMA_ID, record.INFRASTRUCTURE) == (
        launch_record.SCHEMA,
        launch_record.INFRASTRUCTURE,
    )
