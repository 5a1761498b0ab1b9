"""Copy-pasteable commands for one cell, job or accuracy case."""

from __future__ import annotations

import shlex
from typing import Any

from generator.errors import SelectionError, did_you_mean

HOST = "127.0.0.1"
PORT = 30000


def server_command(entry: dict[str, Any]) -> list[str]:
    return [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        entry["model_path"],
        "--host",
        HOST,
        "--port",
        str(PORT),
        *entry["server_args"],
    ]


def bench_command(point: dict[str, Any]) -> list[str]:
    return [
        "python3",
        "-m",
        "sglang.bench_serving",
        "--backend",
        "sglang",
        "--host",
        HOST,
        "--port",
        str(PORT),
        "--dataset-name",
        "random",
        "--random-input-len",
        str(point["isl"]),
        "--random-output-len",
        str(point["osl"]),
        "--random-range-ratio",
        str(point["random_range_ratio"]),
        "--num-prompts",
        str(point["num_prompts"]),
        "--warmup-requests",
        str(point["num_warmups"]),
        "--max-concurrency",
        str(point["concurrency"]),
        "--request-rate",
        "inf",
        "--output-file",
        f"results/{point['id']}.jsonl",
    ]


def eval_command(case: dict[str, Any]) -> list[str]:
    ev = case["evaluator"]
    if ev["kind"] == "lm-eval":
        model_args = (
            f"base_url=http://{HOST}:{PORT}/v1/completions,model={case['model_path']},"
            f"num_concurrent={ev.get('num_concurrent', 1)},max_retries=3,"
            "tokenized_requests=False"
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
            f"results/{case['id']}-lm-eval",
        ]
    return [
        "python3",
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
        str(PORT),
    ]


def _line(tokens: list[str]) -> str:
    return " ".join(shlex.quote(t) for t in tokens)


def render(kind: str, entry: dict[str, Any]) -> str:
    title = entry.get("display") or entry.get("name")
    lines = [
        f"# {kind} {entry['id']}: {title}",
        f"# runner: {entry['runner']}   image: {entry['image']}",
    ]
    if "server_mode" in entry:
        lines.append(f"# server mode: {entry['server_mode']}")
    lines += [f"export {k}={shlex.quote(v)}" for k, v in entry["env"].items()]
    lines.append(_line(server_command(entry)) + " &")
    if "points" in entry:
        lines += [_line(bench_command(p)) for p in entry["points"]]
    elif "isl" in entry:
        lines.append(_line(bench_command(entry)))
    else:
        lines.append(_line(eval_command(entry)))
        lines.append(f"# gate: score >= {entry['threshold']}")
    return "\n".join(lines) + "\n"


def find(
    entries: dict[str, list[tuple[str, dict[str, Any]]]], wanted: str
) -> list[tuple[str, dict[str, Any]]]:
    if wanted in entries:
        return entries[wanted]
    raise SelectionError(f"no cell, job or case has id '{wanted}'{did_you_mean(wanted, entries)}")
