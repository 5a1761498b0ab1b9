"""Result files (one per point, one per case) and what the tools' output says.

The field names are a contract with whatever reads `$RESULTS_DIR` (docs/launchers.md);
metric values are copied from the tools unchanged, a missing or non-finite one is null.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal, TypedDict, cast

from generator.launch.contract import JobEntry, PointEntry

PointStatus = Literal["ok", "failed", "server-died"]
CaseStatus = Literal["passed", "failed", "error"]
ERROR_TAIL_LINES = 20


class PointIdentity(TypedDict):
    job_id: str
    suite: str | None
    config: str | None
    display: str | None
    model_path: str
    runner: str | None
    image: str | None
    server_mode: str | None
    point_id: str
    isl: int
    osl: int
    concurrency: int
    random_range_ratio: float
    num_prompts: int
    num_warmups: int
    estimate_minutes: int | None


class BenchMetrics(TypedDict):
    """Keys of the line sglang.bench_serving appends to its --output-file."""

    request_throughput: float | None
    input_throughput: float | None
    output_throughput: float | None
    mean_ttft_ms: float | None
    median_ttft_ms: float | None
    p99_ttft_ms: float | None
    mean_tpot_ms: float | None
    median_tpot_ms: float | None
    p99_tpot_ms: float | None
    mean_itl_ms: float | None
    median_itl_ms: float | None
    p99_itl_ms: float | None
    mean_e2e_latency_ms: float | None
    median_e2e_latency_ms: float | None
    p99_e2e_latency_ms: float | None


BENCH_METRICS = tuple(BenchMetrics.__annotations__)


class PointResult(PointIdentity, BenchMetrics):
    status: PointStatus
    error: str | None
    completed: int | None
    wall_time_s: float | None
    server_start_s: float | None


class CaseResult(TypedDict):
    case_id: str
    name: str | None
    suite: str | None
    model_path: str
    runner: str | None
    image: str | None
    evaluator: str
    task: str
    metric: str
    score: float | None
    threshold: float
    passed: bool
    status: CaseStatus
    error: str | None
    invalid_rate: float | None
    latency_s: float | None
    output_throughput: float | None
    eval_wall_time_s: float | None
    server_start_s: float | None


def point_identity(job: JobEntry, point: PointEntry) -> PointIdentity:
    return {
        "job_id": job["id"],
        "suite": job.get("suite"),
        "config": job.get("config"),
        "display": job.get("display"),
        "model_path": job["model_path"],
        "runner": job.get("runner"),
        "image": job.get("image"),
        "server_mode": job.get("server_mode"),
        "point_id": point["id"],
        "isl": point["isl"],
        "osl": point["osl"],
        "concurrency": point["concurrency"],
        "random_range_ratio": point["random_range_ratio"],
        "num_prompts": point["num_prompts"],
        "num_warmups": point["num_warmups"],
        "estimate_minutes": point.get("estimate_minutes"),
    }


def no_metrics() -> BenchMetrics:
    return bench_metrics({})


def bench_metrics(line: Mapping[str, object]) -> BenchMetrics:
    return cast(BenchMetrics, {key: finite_or_none(line.get(key)) for key in BENCH_METRICS})


def last_json_line(path: Path) -> dict[str, object] | None:
    """The last non-blank line of a JSON Lines file, when it is a JSON object."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    for line in reversed(lines):
        if line.strip():
            try:
                data = json.loads(line)
            except ValueError:
                return None
            return data if isinstance(data, dict) else None
    return None


def finite_or_none(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


FEW_SHOT_PATTERNS = {
    "accuracy": re.compile(r"^Accuracy: ([0-9.eE+-]+|nan)\s*$", re.MULTILINE),
    "invalid_rate": re.compile(r"^Invalid: ([0-9.eE+-]+|nan)\s*$", re.MULTILINE),
    "latency_s": re.compile(r"^Latency: ([0-9.eE+-]+) s\s*$", re.MULTILINE),
    "output_throughput": re.compile(r"^Output throughput: ([0-9.eE+-]+) token/s\s*$", re.MULTILINE),
}


def parse_few_shot(text: str) -> dict[str, float | None]:
    """The last `Accuracy:`, `Invalid:`, `Latency:` and `Output throughput:` values that
    sglang.test.few_shot_gsm8k printed, keyed as in FEW_SHOT_PATTERNS."""
    found: dict[str, float | None] = {}
    for key, pattern in FEW_SHOT_PATTERNS.items():
        matches = pattern.findall(text)
        try:
            found[key] = finite_or_none(float(matches[-1])) if matches else None
        except ValueError:
            found[key] = None
    return found


def lm_eval_score(output_dir: Path, task: str, metric: str) -> tuple[float | None, str | None]:
    """results[task][metric] of the newest results_*.json under `output_dir`, or why not."""
    files = sorted(output_dir.rglob("results_*.json"), key=lambda p: p.stat().st_mtime)
    if not files:
        return None, f"lm_eval wrote no results_*.json under {output_dir}"
    try:
        value = json.loads(files[-1].read_text(encoding="utf-8"))["results"][task][metric]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return None, f"{files[-1]}: no results.{task}[{metric!r}] ({exc!r})"
    score = finite_or_none(value)
    return (score, None) if score is not None else (None, f"{files[-1]}: score {value!r}")


def write_json(path: Path, data: PointResult | CaseResult) -> None:
    """Write atomically, so a reader never sees half a result."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
