"""Synthetic runs of valid result records (schema sglang-ci/record/1) for the results
tests and `make bench`.

Points follow one throughput-interactivity curve per config: at concurrency c the
interactivity is i = I_MAX * 64 / (64 + c) tokens/s per user (TPOT = 1000 / i ms) and the
output throughput per GPU is T = SLOPE * (I_MAX - i), so T rises and i falls along the
concurrency sweep. A run can scale T (`throughput`), move every point along the same curve
(`along` multiplies i, T follows the curve), scale TTFT (`ttft`) and add noise: up to
+-noise on throughput and TTFT, a quarter of that on TPOT (so on interactivity).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from generator.core.record_rules import needs_acceptance, point_validity
from generator.results.record import SCHEMA_ID

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from pathlib import Path

IMAGE = "rocm/sgl-dev:nightly"
RUNNER = "mi355-8gpu"
REPOSITORY = "example/sglang-ci"
I_MAX = 100.0
SLOPE = 10.0
TTFT_MS = 120.0
CONCURRENCY = (4, 8, 16, 32, 64, 128)
START = datetime(2026, 11, 1, 2, 0, tzinfo=UTC)


@dataclass(frozen=True, kw_only=True)
class Run:
    """One synthetic workflow run."""

    day: int
    image: str = IMAGE
    digest: str = ""

    @property
    def started_at(self) -> datetime:
        return START + timedelta(days=self.day)

    @property
    def run_id(self) -> str:
        return str(7000 + self.day)

    @property
    def name(self) -> str:
        return f"{self.started_at:%Y-%m-%dT%H-%M-%SZ}-{self.run_id}"

    def image_digest(self) -> str:
        return self.digest or "sha256:" + f"{self.day:02x}" * 32


@dataclass(frozen=True, kw_only=True)
class Point:
    config: str = "ds-fp8-tp8"
    isl: int = 1024
    osl: int = 1024
    concurrency: int = 4
    spec: str = "none"
    draft_tokens: int | None = None
    gpus: int = 8

    @property
    def point_id(self) -> str:
        return f"{self.config}-{self.isl}-{self.osl}-{self.concurrency}"


def sweep(
    config: str = "ds-fp8-tp8",
    *,
    concurrencies: Sequence[int] = CONCURRENCY,
    pairs: Sequence[tuple[int, int]] = ((1024, 1024),),
    spec: str = "none",
    draft_tokens: int | None = None,
) -> list[Point]:
    return [
        Point(
            config=config,
            isl=isl,
            osl=osl,
            concurrency=c,
            spec=spec,
            draft_tokens=draft_tokens,
        )
        for isl, osl in pairs
        for c in concurrencies
    ]


@dataclass(frozen=True, kw_only=True)
class Shape:
    """How one point of one run departs from the model curve."""

    throughput: float = 1.0
    along: float = 1.0
    ttft: float = 1.0
    noise: float = 0.0
    accept_length: float | None = 2.6
    status: str = "ok"
    completed_short: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _common(run: Run, kind: str, spec: str, draft: int | None, gpus: int) -> dict[str, Any]:
    started = run.started_at
    return {
        "schema": SCHEMA_ID,
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "served_model_path": "/models/deepseek-ai/DeepSeek-R1-0528",
        "server_mode": "sglang",
        "runner_label": RUNNER,
        "spec": spec,
        "draft_tokens": draft,
        "gpus": gpus,
        "error": None,
        "server": {
            "argv": ["python3", "-m", "sglang.launch_server", "--tp", str(gpus)],
            "env": {"SGLANG_USE_AITER": "1"},
        },
        "timings": {
            "started_at": f"{started:%Y-%m-%dT%H:%M:%SZ}",
            "ended_at": f"{started + timedelta(minutes=5):%Y-%m-%dT%H:%M:%SZ}",
            "wall_time_s": 300.0,
            "server_start_s": 240.0,
            "download_s": None,
            "estimate_minutes": 5,
        },
        "provenance": {
            "image": {
                "requested": run.image,
                "tag": run.image.rpartition(":")[2],
                "digest": run.image_digest(),
                "pinned": f"{run.image.rpartition(':')[0]}@{run.image_digest()}",
                "resolution": "registry",
            },
            "sglang_version": "0.5.6",
            "sglang_commit": None,
            "atom_version": None,
            "aiter_version": None,
            "rocm_version": "7.0.2",
            "gpu": {"model": "AMD Instinct MI355X", "count": gpus, "vram_gb": 288.0},
            "runner_name": "runner-01",
            "runner_label": RUNNER,
            "github": {
                "repository": REPOSITORY,
                "workflow": "benchmark" if kind == "point" else "accuracy-nightly",
                "run_id": run.run_id,
                "run_attempt": "1",
                "event": "schedule",
                "ref": "refs/heads/main",
            },
            "catalog_commit": "0" * 40,
        },
    }


def curve(concurrency: int, along: float = 1.0) -> tuple[float, float]:
    """(interactivity, output throughput per GPU) of the model at `concurrency`."""
    i = I_MAX * 64 / (64 + concurrency) * along
    return i, SLOPE * (I_MAX - i)


def point_record(
    run: Run, p: Point, shape: Shape = Shape(), rng: random.Random | None = None
) -> dict[str, Any]:
    """A valid point record of `run` at `p`, shaped by `shape`."""

    def jitter(scale: float = 1.0) -> float:
        return 1.0 + rng.uniform(-shape.noise, shape.noise) * scale if rng else 1.0

    i, per_gpu = curve(p.concurrency, shape.along)
    per_gpu *= shape.throughput * jitter()
    i *= jitter(0.25)
    tpot = 1000.0 / i
    ttft = TTFT_MS * (1 + p.concurrency / 32) * shape.ttft * jitter()
    output = per_gpu * p.gpus
    total = output * (p.isl + p.osl) / p.osl
    num_prompts = p.concurrency * 10
    ok = shape.status == "ok"
    mtp = needs_acceptance(p.spec, p.osl)
    accept = shape.accept_length if mtp and ok else None
    metrics: dict[str, Any] = {
        "completed": num_prompts - shape.completed_short if ok else None,
        "duration_s": 60.0,
        "request_throughput": num_prompts / 60.0,
        "input_throughput": output * p.isl / p.osl,
        "output_throughput": output,
        "total_token_throughput": total,
        "output_throughput_per_gpu": per_gpu,
        "total_token_throughput_per_gpu": total / p.gpus,
        "mean_ttft_ms": ttft * 1.1,
        "median_ttft_ms": ttft,
        "p99_ttft_ms": ttft * 3,
        "mean_tpot_ms": tpot * 1.05,
        "median_tpot_ms": tpot,
        "p99_tpot_ms": tpot * 1.5,
        "mean_itl_ms": tpot,
        "median_itl_ms": tpot * 0.95,
        "p99_itl_ms": tpot * 2,
        "mean_e2e_latency_ms": ttft + tpot * p.osl,
        "median_e2e_latency_ms": ttft + tpot * p.osl,
        "p99_e2e_latency_ms": (ttft + tpot * p.osl) * 1.5,
        "interactivity": 1000.0 / tpot,
        "accept_length": accept,
        "acceptance_rate": None
        if accept is None or not p.draft_tokens
        else (accept - 1) / p.draft_tokens,
    }
    if not ok:
        metrics = dict.fromkeys(metrics)
    metrics.update(shape.extra)
    valid, reason = point_validity(
        status=shape.status,
        completed=metrics["completed"],
        num_prompts=num_prompts,
        metrics=metrics,
        spec=p.spec,
        osl=p.osl,
    )
    job_id = f"{p.config}-{p.isl}x{p.osl}"
    return {
        **_common(run, "point", p.spec, p.draft_tokens, p.gpus),
        "server_fingerprint": f"fp-{p.config}",
        "kind": "point",
        "id": p.point_id,
        "job_id": job_id,
        "suite": "SGLang-OOB",
        "config": p.config,
        "display": p.config.upper(),
        "dashboard_model": p.config,
        "point": {
            "pair": f"{p.isl}x{p.osl}",
            "isl": p.isl,
            "osl": p.osl,
            "concurrency": p.concurrency,
            "random_range_ratio": 0.8,
            "num_prompts": num_prompts,
            "num_warmups": 8,
        },
        "status": shape.status,
        "validity": {"valid": valid, "reason": reason},
        "metrics": metrics,
        "client": {
            "name": "sglang.bench_serving",
            "version": "0.5.6",
            "argv": [
                "python3",
                "-m",
                "sglang.bench_serving",
                "--max-concurrency",
                str(p.concurrency),
            ],
        },
    }


def case_record(
    run: Run,
    case: str = "gsm8k-ds-fp8",
    *,
    score: float | None = 0.95,
    threshold: float = 0.93,
    spec: str = "none",
    draft_tokens: int | None = None,
    accept_length: float | None = None,
    min_acceptance_rate: float | None = None,
    status: str | None = None,
) -> dict[str, Any]:
    """A valid accuracy case record; its status follows the score and the gates."""
    rate = None if accept_length is None or not draft_tokens else (accept_length - 1) / draft_tokens
    passed = (
        score is not None
        and score >= threshold
        and (min_acceptance_rate is None or (rate is not None and rate >= min_acceptance_rate))
    )
    status = status or ("passed" if passed else "failed")
    valid = status in ("passed", "failed")
    return {
        **_common(run, "case", spec, draft_tokens, 8),
        "server_fingerprint": f"fp-case-{case}",
        "kind": "case",
        "id": f"{case}-nightly",
        "case": case,
        "name": case.upper(),
        "suite": "atom",
        "benchmark": None,
        "status": status,
        "validity": {"valid": valid, "reason": None if valid else f"status {status}"},
        "metrics": {
            "metric": "exact_match,flexible-extract",
            "score": score,
            "threshold": threshold,
            "passed": passed,
            "invalid_rate": 0.0,
            "latency_s": 100.0,
            "output_throughput": 2000.0,
            "accept_length": accept_length,
            "acceptance_rate": rate,
            "min_acceptance_rate": min_acceptance_rate,
        },
        "evaluator": {
            "name": "lm-eval",
            "version": "0.4.9",
            "argv": ["lm_eval", "--tasks", "gsm8k"],
        },
    }


def write_run(
    parent: Path, run: Run, records: Iterable[dict[str, Any]], *, name: str | None = None
) -> Path:
    """Write `records` as `<parent>/<run name>/<job or case>/<id>.json`; the run directory."""
    root = parent / (name or run.name)
    for record in records:
        group = record.get("job_id") or record.get("case") or "misc"
        path = root / str(group) / f"{record['id']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record), encoding="utf-8")
    return root


def history(
    parent: Path,
    points: Sequence[Point],
    days: int,
    *,
    noise: float = 0.02,
    shapes: dict[tuple[int, str], Shape] | None = None,
    seed: int = 1,
) -> list[Run]:
    """`days` nightly runs of `points` under `parent` (days 0..days-1), each value within
    +-noise of the model; `shapes[(day, point_id)]` overrides one point of one run."""
    rng = random.Random(seed)
    runs = [Run(day=d) for d in range(days)]
    for run in runs:
        write_run(
            parent,
            run,
            [
                point_record(
                    run, p, (shapes or {}).get((run.day, p.point_id), Shape(noise=noise)), rng
                )
                for p in points
            ],
        )
    return runs
