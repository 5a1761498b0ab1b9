"""generator.launch.results: reading what the tools write, however malformed."""

from __future__ import annotations

import json
import os

import pytest

from generator.launch.results import few_shot_metrics, lm_eval_score, result_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_the_client_result_is_its_last_line_with_a_bare_infinity_read_as_inf(
    tmp_path: Path,
) -> None:
    output = tmp_path / "point.bench.jsonl"
    output.write_text('{"completed": 1}\n{"completed": 2, "request_rate": Infinity}\n\n')
    assert result_line(output)[0] == {"completed": 2, "request_rate": float("inf")}
    assert result_line(tmp_path / "missing.jsonl")[0] is None


def test_the_lm_eval_score_comes_from_the_newest_results_file(tmp_path: Path) -> None:
    for name, score, mtime in (("results_a.json", 0.5, 1), ("results_b.json", 0.9, 2)):
        path = tmp_path / "model" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"results": {"gsm8k": {"m,f": score}}}), encoding="utf-8")
        os.utime(path, (mtime, mtime))
    assert lm_eval_score(tmp_path, "gsm8k", "m,f") == (0.9, None)
    missing, error = lm_eval_score(tmp_path, "gsm8k", "other")
    assert missing is None
    assert error is not None
    assert "no results.gsm8k['other']" in error
    assert lm_eval_score(tmp_path / "model", "x", "y")[0] is None


def test_the_few_shot_metrics_keep_the_unrounded_accuracy(tmp_path: Path) -> None:
    path = tmp_path / "metrics.json"
    path.write_text('{"accuracy": 0.9439, "invalid": 0.0, "latency": NaN, "host": "127.0.0.1"}')
    metrics = {"accuracy": 0.9439, "invalid": 0.0, "latency": None, "output_throughput": None}
    assert few_shot_metrics(path) == (metrics, None)
    path.write_text('{"accuracy": NaN}')
    assert few_shot_metrics(path)[1] == f"{path}: no finite accuracy (nan)"


HOSTILE_LINES = {
    "empty": (b"", "is empty"),
    "blank": (b"\n \n", "is empty"),
    "garbage": (b"Accuracy: 1.2.3\n", "is not JSON ("),
    "truncated": (b'{"completed": 2, "dur', "is not JSON ("),
    "non-utf8": (b'{"x": "\xff\xfe"}\n', "is not UTF-8 (byte 7)"),
    "nested": (b"[" * 100_000 + b"]" * 100_000, "is nested too deeply to read"),
    "huge-number": (b'{"completed": 1' + b"0" * 5000 + b"}", "is not JSON ("),
    "list": (b"[1, 2]\n", "is not a JSON object"),
    "string": (b'"ok"\n', "is not a JSON object"),
}


@pytest.mark.parametrize("name", list(HOSTILE_LINES))
def test_a_malformed_result_line_gives_a_reason_not_an_exception(tmp_path: Path, name: str) -> None:
    data, reason = HOSTILE_LINES[name]
    output = tmp_path / "point.bench.jsonl"
    output.write_bytes(data)
    line, error = result_line(output)
    assert line is None
    assert error is not None
    assert reason in error
    assert len(error) < 400


def test_a_missing_result_file_gives_a_reason(tmp_path: Path) -> None:
    assert result_line(tmp_path / "none.jsonl") == (
        None,
        f"{tmp_path / 'none.jsonl'} does not exist",
    )


HOSTILE_RESULTS = {
    "garbage": (b"not json", "is not JSON ("),
    "non-utf8": (b'{"results": "\xff"}', "is not UTF-8"),
    "nested": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "no-results": (b"{}", "no results.gsm8k['m'] (no 'results')"),
    "results-a-list": (b'{"results": [1]}', "no results.gsm8k['m'] (no 'gsm8k')"),
    "no-metric": (b'{"results": {"gsm8k": {}}}', "(no 'm')"),
    "nan": (b'{"results": {"gsm8k": {"m": NaN}}}', "score nan is not a finite number"),
    "string": (b'{"results": {"gsm8k": {"m": "1.2.3"}}}', "score '1.2.3' is not a finite number"),
    "bool": (b'{"results": {"gsm8k": {"m": true}}}', "score True is not a finite number"),
    "negative": (b'{"results": {"gsm8k": {"m": -0.1}}}', "score -0.1 is outside 0 to 1"),
    "above-one": (b'{"results": {"gsm8k": {"m": 1.5}}}', "score 1.5 is outside 0 to 1"),
}


@pytest.mark.parametrize("name", list(HOSTILE_RESULTS))
def test_a_malformed_lm_eval_results_file_gives_a_reason(tmp_path: Path, name: str) -> None:
    data, reason = HOSTILE_RESULTS[name]
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "results_1.json").write_bytes(data)
    score, error = lm_eval_score(tmp_path, "gsm8k", "m")
    assert score is None
    assert error is not None
    assert reason in error


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "is not JSON ("),
        (b"[]", "not a JSON object"),
        (b'{"accuracy": "1.2.3"}', "no finite accuracy ('1.2.3')"),
        (b'{"accuracy": -1}', "score -1.0 is outside 0 to 1"),
        (b'{"accuracy": 0.5, "latency": "x"}', None),
    ],
)
def test_malformed_few_shot_metrics_give_a_reason(
    tmp_path: Path, data: bytes, reason: str | None
) -> None:
    path = tmp_path / "metrics.json"
    path.write_bytes(data)
    metrics, error = few_shot_metrics(path)
    if reason is None:
        assert (error, metrics["accuracy"], metrics["latency"]) == (None, 0.5, None)
    else:
        assert error is not None
        assert reason in error
        assert metrics.get("accuracy") is None
