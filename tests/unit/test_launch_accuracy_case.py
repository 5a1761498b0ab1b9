"""generator.launch.accuracy_case: how an evaluated case's score and acceptance rate are
read and gated (passed, failed and why, or no score), and each status's exit code."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest

from generator.core.commands import Where
from generator.core.exits import FAILED, INFRASTRUCTURE, OK
from generator.launch.accuracy_case import EXIT_CODES, _Result, _score

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import CaseEntry

LM_EVAL = {"kind": "lm-eval", "task": "gsm8k", "metric": "exact_match,strict-match"}
FEW_SHOT = {"kind": "sglang-few-shot-gsm8k"}


def case(evaluator: dict[str, Any], **fields: Any) -> CaseEntry:
    data = {
        "id": "ds",
        "evaluator": evaluator,
        "threshold": 0.9,
        "min_acceptance_rate": None,
        "draft_tokens": None,
        **fields,
    }
    return cast("CaseEntry", data)


def score(tmp_path: Path, entry: CaseEntry, accept_length: float | None = None) -> _Result:
    where = Where(python="py", port="1", logs=str(tmp_path))
    result = _Result(accept_length=accept_length)
    _score(entry, tmp_path / "ds.lm-eval", where, result)
    return result


def lm_eval_results(tmp_path: Path, value: float) -> None:
    folder = tmp_path / "ds.lm-eval" / "model"
    folder.mkdir(parents=True)
    data = {"results": {"gsm8k": {"exact_match,strict-match": value}}}
    (folder / "results_1.json").write_text(json.dumps(data), encoding="utf-8")


def few_shot_metrics(tmp_path: Path, data: dict[str, Any]) -> None:
    folder = tmp_path / "ds.sglang-few-shot-gsm8k"
    folder.mkdir()
    (folder / "metrics.json").write_text(json.dumps(data), encoding="utf-8")


def test_a_score_at_the_threshold_passes(tmp_path: Path) -> None:
    lm_eval_results(tmp_path, 0.9)
    result = score(tmp_path, case(LM_EVAL))
    assert (result.status, result.error, result.score, result.extra) == ("passed", None, 0.9, {})


def test_a_score_below_the_threshold_fails_and_says_so(tmp_path: Path) -> None:
    few_shot_metrics(tmp_path, {"accuracy": 0.85, "invalid": 0.01, "latency": 12.5})
    result = score(tmp_path, case(FEW_SHOT))
    assert (result.status, result.error) == ("failed", "score 0.85 < threshold 0.9")
    assert result.extra == {
        "accuracy": 0.85,
        "invalid": 0.01,
        "latency": 12.5,
        "output_throughput": None,
    }


def test_no_score_leaves_the_case_an_error_with_the_reason(tmp_path: Path) -> None:
    result = score(tmp_path, case(LM_EVAL))
    assert (result.status, result.score) == ("error", None)
    assert result.error == f"lm_eval wrote no results_*.json under {tmp_path / 'ds.lm-eval'}"


def test_the_acceptance_rate_is_gated_on_its_minimum(tmp_path: Path) -> None:
    lm_eval_results(tmp_path, 0.95)
    spec = case(LM_EVAL, min_acceptance_rate=0.5, draft_tokens=3)
    assert score(tmp_path, spec, accept_length=2.5).status == "passed"  # rate 0.5
    low = score(tmp_path, spec, accept_length=2.2)
    assert (low.status, low.error) == (
        "failed",
        "acceptance rate 0.4000 < min_acceptance_rate 0.5",
    )
    none = score(tmp_path, spec)
    assert (none.status, none.error) == (
        "error",
        "the speculative-decoding server reported no acceptance length",
    )


def test_both_gates_missed_are_both_named(tmp_path: Path) -> None:
    lm_eval_results(tmp_path, 0.5)
    result = score(tmp_path, case(LM_EVAL, min_acceptance_rate=0.5, draft_tokens=1), 1.25)
    assert result.error == (
        "score 0.5 < threshold 0.9; acceptance rate 0.2500 < min_acceptance_rate 0.5"
    )


@pytest.mark.parametrize(
    ("status", "code"),
    [("passed", OK), ("failed", FAILED), ("error", INFRASTRUCTURE), ("timeout", INFRASTRUCTURE)],
)
def test_each_status_has_its_exit_code(status: str, code: int) -> None:
    assert EXIT_CODES[status] == code
