"""Every command a job or case runs, built in this one place.

The launcher executes these argv lists; `sglang-ci explain` and the recipe pages print
them. `Where` holds what only the machine knows (the Python to run, the port, the
results and log directories): the launcher fills it with values, explain with the
names of the variables it reads them from.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.launch.contract import CaseEntry, JobEntry, PointEntry, ServerEntry

HOST = "127.0.0.1"
# Polled in this order until each answers 200: the server is up, then its model is loaded.
READY_PATHS = ("/health", "/v1/models")
# Posted between two points served by one server process, so no point reuses another's cache.
FLUSH_PATH = "/flush_cache"
# Used by lm-eval's `local-completions` model; the SGLang server's OpenAI endpoint.
COMPLETIONS_PATH = "/v1/completions"
LM_EVAL_MAX_RETRIES = 3


@dataclass(frozen=True, kw_only=True)
class Where:
    """Machine-specific parts of the commands."""

    python: str
    port: str
    logs: str


def base_url(where: Where) -> str:
    return f"http://{HOST}:{where.port}"


def server_log(entry: ServerEntry, where: Where) -> str:
    return f"{where.logs}/{entry['id']}.server.log"


def server_argv(entry: ServerEntry, where: Where) -> list[str]:
    """`python -m sglang.launch_server` with the model, the loopback address and the
    entry's arguments, token for token; the entry's env is added to the launcher's own."""
    return [
        where.python,
        "-m",
        "sglang.launch_server",
        "--model-path",
        entry["model_path"],
        "--host",
        HOST,
        "--port",
        where.port,
        *entry["server_args"],
    ]


def bench_output(point: PointEntry, where: Where) -> str:
    """The JSON Lines file sglang.bench_serving appends its result line to."""
    return f"{where.logs}/{point['id']}.bench.jsonl"


def bench_log(point: PointEntry, where: Where) -> str:
    return f"{where.logs}/{point['id']}.bench.log"


def bench_argv(job: JobEntry, point: PointEntry, where: Where) -> list[str]:
    """One point with `python -m sglang.bench_serving` against the job's server."""
    del job  # every point of a job runs the same client; the job is named for callers
    return [
        where.python,
        "-m",
        "sglang.bench_serving",
        "--backend",
        "sglang",
        "--host",
        HOST,
        "--port",
        where.port,
        "--dataset-name",
        "random",
        "--random-input-len",
        str(point["isl"]),
        "--random-output-len",
        str(point["osl"]),
        "--random-range-ratio",
        _number(point["random_range_ratio"]),
        "--num-prompts",
        str(point["num_prompts"]),
        "--warmup-requests",
        str(point["num_warmups"]),
        "--max-concurrency",
        str(point["concurrency"]),
        "--request-rate",
        "inf",
        "--output-file",
        bench_output(point, where),
    ]


def eval_dir(case: CaseEntry, where: Where) -> str:
    """The evaluator's working directory (created empty); lm-eval writes its results
    under it, few_shot_gsm8k dumps its answers into it."""
    return f"{where.logs}/{case['id']}.{case['evaluator']['kind']}"


def eval_log(case: CaseEntry, where: Where) -> str:
    return f"{where.logs}/{case['id']}.eval.log"


def eval_argv(case: CaseEntry, where: Where) -> list[str]:
    """The case's evaluator, run in `eval_dir`, against the case's server."""
    ev = case["evaluator"]
    if ev["kind"] == "lm-eval":
        model_args = ",".join(
            (
                f"base_url={base_url(where)}{COMPLETIONS_PATH}",
                f"model={case['model_path']}",
                f"num_concurrent={ev['num_concurrent']}",
                f"max_retries={LM_EVAL_MAX_RETRIES}",
                "tokenized_requests=False",
            )
        )
        return [
            "lm_eval",
            "--model",
            ev["model"],
            "--model_args",
            model_args,
            "--tasks",
            ev["task"],
            "--num_fewshot",
            str(ev["num_fewshot"]),
            "--output_path",
            eval_dir(case, where),
        ]
    return [
        where.python,
        "-m",
        "sglang.test.few_shot_gsm8k",
        "--num-shots",
        str(ev["num_shots"]),
        "--num-questions",
        str(ev["num_questions"]),
        "--parallel",
        str(ev["parallel"]),
        "--host",
        f"http://{HOST}",
        "--port",
        where.port,
    ]


def _number(value: float) -> str:
    """A ratio as the matrix JSON writes it (0.8, 1.0)."""
    return repr(float(value))
