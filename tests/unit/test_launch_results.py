"""generator.launch.results: reading the scores and metrics the tools write."""

from __future__ import annotations

import json
import os
from pathlib import Path

from generator.launch.results import (
    BENCH_METRICS,
    bench_metrics,
    last_json_line,
    lm_eval_score,
    parse_few_shot,
)


def test_few_shot_values_are_the_last_ones_printed() -> None:
    text = "Accuracy: 0.100\nAccuracy: 0.953\nInvalid: 0.001\nLatency: 41.017 s\n"
    text += "Output throughput: 5123.456 token/s\n"
    assert parse_few_shot(text) == {
        "accuracy": 0.953,
        "invalid_rate": 0.001,
        "latency_s": 41.017,
        "output_throughput": 5123.456,
    }
    assert parse_few_shot("Accuracy: nan\n")["accuracy"] is None


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


def test_bench_metrics_copy_finite_values_and_null_the_rest(tmp_path: Path) -> None:
    output = tmp_path / "point.bench.jsonl"
    lines = [{"completed": 1}, {"completed": 2, "mean_ttft_ms": 5, "p99_ttft_ms": float("nan")}]
    output.write_text("".join(json.dumps(line) + "\n" for line in lines) + "\n")
    line = last_json_line(output)
    assert line is not None and line["completed"] == 2
    metrics = bench_metrics(line)
    assert list(metrics) == list(BENCH_METRICS)
    assert (metrics["mean_ttft_ms"], metrics["p99_ttft_ms"]) == (5.0, None)
    assert last_json_line(tmp_path / "missing.jsonl") is None
