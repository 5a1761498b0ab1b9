"""generator.launch.results: reading what the tools write."""

from __future__ import annotations

import json
import os
from pathlib import Path

from generator.launch.results import few_shot_metrics, last_json_line, lm_eval_score


def test_the_client_result_is_its_last_line_with_a_bare_infinity_read_as_inf(
    tmp_path: Path,
) -> None:
    output = tmp_path / "point.bench.jsonl"
    output.write_text('{"completed": 1}\n{"completed": 2, "request_rate": Infinity}\n\n')
    assert last_json_line(output) == {"completed": 2, "request_rate": float("inf")}
    assert last_json_line(tmp_path / "missing.jsonl") is None


def test_the_lm_eval_score_comes_from_the_newest_results_file(tmp_path: Path) -> None:
    for name, score, mtime in (("results_a.json", 0.5, 1), ("results_b.json", 0.9, 2)):
        path = tmp_path / "model" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps({"results": {"gsm8k": {"m,f": score}}}), encoding="utf-8")
        os.utime(path, (mtime, mtime))
    assert lm_eval_score(tmp_path, "gsm8k", "m,f") == (0.9, None)
    missing, error = lm_eval_score(tmp_path, "gsm8k", "other")
    assert missing is None and error is not None and "no results.gsm8k['other']" in error
    assert lm_eval_score(tmp_path / "model", "x", "y")[0] is None


def test_the_few_shot_metrics_keep_the_unrounded_accuracy(tmp_path: Path) -> None:
    path = tmp_path / "metrics.json"
    path.write_text('{"accuracy": 0.9439, "invalid": 0.0, "latency": NaN, "host": "127.0.0.1"}')
    metrics = {"accuracy": 0.9439, "invalid": 0.0, "latency": None, "output_throughput": None}
    assert few_shot_metrics(path) == (metrics, None)
    path.write_text('{"accuracy": NaN}')
    assert few_shot_metrics(path)[1] == f"{path}: no finite accuracy (nan)"
