"""What the reference ATOM system leaves unsaid, as its workflows do it, and the parsers of
its flat strings (`extra_args`, `env_vars`)."""

from __future__ import annotations

import re
import shlex
from typing import Any

from generator.catalog.catalog_types import AccuracySuite, Config, Evaluator, Pair, Suite
from generator.catalog.server_types import (
    Client,
    EnvVar,
    Estimates,
    Flag,
    PointModel,
    Sampling,
    StartupRule,
)
from generator.errors import Loc

STANDARD = Sampling(name="standard", prompts_per_concurrency=10, warmups_per_concurrency=2)
MODE = "reference"
OOB_PAIRS = (Pair(isl=1024, osl=1024), Pair(isl=8192, osl=1024))
MESH_PAIRS = (Pair(isl=8192, osl=1), Pair(isl=1, osl=1024))
OOB_CONCURRENCY = (4, 8, 16, 32, 64)
ATOM_SUITE = AccuracySuite(
    name="atom",
    timeout_minutes=(("nightly", 240), ("pr", 180)),
    eval_timeout_minutes=120,
    evaluator=Evaluator(kind="lm-eval", settings=(("task", "gsm8k"), ("num_fewshot", 3))),
)
# The InferenceX client the reference workflows run (its flags as the matrix entry holds them).
CLIENT = Client(
    name="benchmark_serving",
    description="the InferenceX benchmark_serving.py the reference workflows run",
    module="benchmark_serving",
    args=(),
    env=(),
    loc=Loc("reference", 1),
)
# The JSON says nothing of job lengths: one bound, GitHub's default job timeout.
ESTIMATES = Estimates(
    max_job_minutes=360,
    job_timeout_minutes=360,
    point_timeout_factor=3.0,
    startup=(StartupRule(up_to_params_b=None, minutes=30),),
    point=PointModel(
        overhead_minutes=1,
        prefill_tokens_per_gpu_second=5000,
        decode_step_ms=20,
        decode_step_ms_per_request=0.05,
    ),
    loc=Loc("reference", 1),
)


def parse_args(text: str, loc: Loc) -> list[Flag]:
    out: list[Flag] = []
    for token in shlex.split(text):
        if token.startswith("--"):
            out.append(Flag(name=token, values=(), loc=loc))
        elif out:
            last = out[-1]
            out[-1] = Flag(name=last.name, values=(*last.values, token), loc=loc)
    return out


def parse_env(text: str, loc: Loc) -> list[EnvVar]:
    out = []
    for line in text.split("\n"):
        if line.strip():
            name, _, value = line.partition("=")
            out.append(EnvVar(name=name, value=value, loc=loc))
    return out


def items(raw: str | list[Any] | None) -> list[str]:
    return [raw] if isinstance(raw, str) else [str(x) for x in raw or []]


def runner_gpus(label: str) -> int:
    found = re.search(r"(\d+)gpu", label) or re.search(r"-(\d+)$", label)
    return int(found[1]) if found else 8


def model_fields(path: str) -> tuple[str, str]:
    low = path.lower()
    family = next((f for f in ("deepseek", "qwen", "glm", "kimi", "minimax") if f in low), "other")
    precision = "fp4" if "fp4" in low else "fp8" if "fp8" in low else "bf16"
    return family, precision


def pair_of(text: str) -> Pair:
    isl, osl = text.split("x")
    return Pair(isl=int(isl), osl=int(osl))


def spec_of(flags: dict[str, tuple[str, ...]]) -> str:
    if "--speculative-algorithm" not in flags:
        return "none"
    steps = flags.get("--speculative-num-steps")
    return f"mtp{steps[0]}" if steps else "mtp"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def reference_suite(name: str, key: str, configs: tuple[Config, ...], loc: Loc) -> Suite:
    base = MESH_PAIRS if key == "mesh" else OOB_PAIRS
    pairs = tuple(dict.fromkeys([*base, *(p for c in configs for p, _ in c.grid)]))
    return Suite(
        name=name,
        key=key,
        runner="atom-mi355-8gpu-aac-runner",
        random_range_ratio=1.0 if key == "mesh" else 0.8,
        sampling="standard",
        pairs=pairs,
        concurrency=None if key == "mesh" else OOB_CONCURRENCY,
        server_modes=(MODE,),
        client=CLIENT.name,
        loc=loc,
    )
