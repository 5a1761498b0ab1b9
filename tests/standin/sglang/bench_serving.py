"""Stand-in for `python -m sglang.bench_serving`.

Accepts the real flag names (the subset the launchers use plus common ones),
fetches the model id from /v1/models (exit 1 when unreachable, as the real
tool does), sends one warmup request when --warmup-requests > 0 (all warmups
failing raises ValueError, as the real tool does), then sends
min(--num-prompts, 3) real requests to /generate. Failed requests lower
`completed`. It prints the real "Serving Benchmark Result" block and appends
one JSON line with the real key names to --output-file.

The numbers are deterministic functions of ISL, OSL and concurrency.
$SGLANG_STANDIN_BENCH_FAIL_CONC=<concurrency> makes the run crash for that
--max-concurrency; $SGLANG_STANDIN_BENCH_SLEEP_S=<s> makes it sleep first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime
from typing import Any

from ._standin import RequestError, http_json, note_client

MAX_REAL_REQUESTS = 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Benchmark the online serving throughput.")
    parser.add_argument("--backend", type=str, default="sglang")
    parser.add_argument("--base-url", type=str, default=None)
    parser.add_argument("--host", type=str, default="0.0.0.0")
    parser.add_argument("--port", type=int)
    parser.add_argument("--dataset-name", type=str, default="sharegpt")
    parser.add_argument("--dataset-path", type=str, default="")
    parser.add_argument("--model", type=str)
    parser.add_argument("--tokenizer", type=str)
    parser.add_argument("--num-prompts", type=int, default=1000)
    parser.add_argument("--sharegpt-output-len", type=int, default=None)
    parser.add_argument("--random-input-len", type=int, default=1024)
    parser.add_argument("--random-output-len", type=int, default=1024)
    parser.add_argument("--random-range-ratio", type=float, default=0.0)
    parser.add_argument("--request-rate", type=float, default=float("inf"))
    parser.add_argument("--max-concurrency", type=int, default=None)
    parser.add_argument("--output-file", type=str)
    parser.add_argument("--output-details", action="store_true")
    parser.add_argument("--disable-tqdm", action="store_true")
    parser.add_argument("--disable-stream", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--disable-ignore-eos", action="store_true")
    parser.add_argument("--extra-request-body", type=str)
    parser.add_argument("--flush-cache", action="store_true")
    parser.add_argument("--warmup-requests", type=int, default=1)
    parser.add_argument("--tokenize-prompt", action="store_true")
    return parser


def generate(api_url: str, index: int, output_len: int) -> bool:
    payload = {
        "text": f"random prompt {index}",
        "sampling_params": {"temperature": 0.0, "max_new_tokens": output_len, "ignore_eos": True},
        "stream": False,
    }
    try:
        http_json(api_url, payload)
    except RequestError as exc:
        print(f"request {index} failed: {exc!r}", file=sys.stderr)
        return False
    return True


def metrics(args: argparse.Namespace, completed: int) -> dict[str, Any]:
    isl, osl = args.random_input_len, args.random_output_len
    conc = args.max_concurrency or args.num_prompts
    load = 1.0 + conc / 64.0
    ttft = (5.0 + 0.02 * isl) * load
    e2e = ttft + 1.0 * load * max(osl - 1, 0)
    tpot = (e2e - ttft) / max(osl - 1, 1)
    duration = max(args.num_prompts / conc, 1.0) * e2e / 1000.0
    nan = float("nan")
    return {
        "duration": duration,
        "completed": completed,
        "total_input_tokens": completed * isl,
        "total_output_tokens": completed * osl,
        "total_output_tokens_retokenized": completed * osl,
        "request_throughput": completed / duration,
        "input_throughput": completed * isl / duration,
        "output_throughput": completed * osl / duration,
        "mean_e2e_latency_ms": e2e if completed else nan,
        "median_e2e_latency_ms": e2e * 0.98 if completed else nan,
        "std_e2e_latency_ms": e2e * 0.05 if completed else nan,
        "p99_e2e_latency_ms": e2e * 1.2 if completed else nan,
        "mean_ttft_ms": ttft,
        "median_ttft_ms": ttft * 0.98,
        "std_ttft_ms": ttft * 0.05,
        "p99_ttft_ms": ttft * 1.2,
        "mean_tpot_ms": tpot,
        "median_tpot_ms": tpot * 0.98,
        "std_tpot_ms": tpot * 0.05,
        "p99_tpot_ms": tpot * 1.2,
        "mean_itl_ms": tpot,
        "median_itl_ms": tpot * 0.98,
        "std_itl_ms": tpot * 0.05,
        "p95_itl_ms": tpot * 1.1,
        "p99_itl_ms": tpot * 1.2,
        "concurrency": float(conc),
        "accept_length": None,
    }


def print_summary(args: argparse.Namespace, result: dict[str, Any]) -> None:
    row = "{:<40} {:<10}"
    num = "{:<40} {:<10.2f}"
    print("\n{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    print(row.format("Backend:", args.backend))
    print(row.format("Traffic request rate:", args.request_rate))
    print(row.format("Max request concurrency:", args.max_concurrency or "not set"))
    print(row.format("Successful requests:", result["completed"]))
    print(num.format("Benchmark duration (s):", result["duration"]))
    print(row.format("Total input tokens:", result["total_input_tokens"]))
    print(row.format("Total generated tokens:", result["total_output_tokens"]))
    print(num.format("Request throughput (req/s):", result["request_throughput"]))
    print(num.format("Input token throughput (tok/s):", result["input_throughput"]))
    print(num.format("Output token throughput (tok/s):", result["output_throughput"]))
    print(num.format("Concurrency:", result["concurrency"]))
    print("{s:{c}^{n}}".format(s="End-to-End Latency", n=50, c="-"))
    print(num.format("Mean E2E Latency (ms):", result["mean_e2e_latency_ms"]))
    print(num.format("Median E2E Latency (ms):", result["median_e2e_latency_ms"]))
    print("{s:{c}^{n}}".format(s="Time to First Token", n=50, c="-"))
    print(num.format("Mean TTFT (ms):", result["mean_ttft_ms"]))
    print(num.format("Median TTFT (ms):", result["median_ttft_ms"]))
    print(num.format("P99 TTFT (ms):", result["p99_ttft_ms"]))
    print("{s:{c}^{n}}".format(s="Inter-Token Latency", n=50, c="-"))
    print(num.format("Mean ITL (ms):", result["mean_itl_ms"]))
    print(num.format("Median ITL (ms):", result["median_itl_ms"]))
    print(num.format("P95 ITL (ms):", result["p95_itl_ms"]))
    print(num.format("P99 ITL (ms):", result["p99_itl_ms"]))
    print("=" * 50)


def run(args: argparse.Namespace) -> int:
    fail_conc = os.environ.get("SGLANG_STANDIN_BENCH_FAIL_CONC")
    if fail_conc is not None and fail_conc == str(args.max_concurrency):
        raise RuntimeError(f"standin: simulated benchmark crash at concurrency {fail_conc}")
    port = args.port if args.port is not None else 30000
    base_url = args.base_url or f"http://{args.host}:{port}"
    model_url = f"{base_url}/v1/models"
    try:
        model_list = http_json(model_url).get("data", [])
        args.model = args.model or (model_list[0]["id"] if model_list else None)
    except RequestError as exc:
        print(f"Failed to fetch model from {model_url}. Error: {exc}")
        print("Please specify the correct host and port using `--host` and `--port`.")
        return 1
    print(f"benchmark_args={args}")
    api_url = f"{base_url}/generate"
    print(f"Starting warmup with {args.warmup_requests} sequences...")
    if args.warmup_requests > 0 and not generate(api_url, -1, 32):
        raise ValueError(
            "Warmup failed - Please make sure benchmark arguments are correctly specified."
        )
    print(f"Warmup completed with {args.warmup_requests} sequences. Starting main benchmark run...")
    sent = min(args.num_prompts, MAX_REAL_REQUESTS)
    ok = sum(generate(api_url, i, args.random_output_len) for i in range(sent))
    completed = args.num_prompts if ok == sent else (args.num_prompts * ok) // max(sent, 1)
    result: dict[str, Any] = {
        "backend": args.backend,
        "dataset_name": args.dataset_name,
        "request_rate": args.request_rate,
        "max_concurrency": args.max_concurrency,
        "sharegpt_output_len": args.sharegpt_output_len,
        "random_input_len": args.random_input_len,
        "random_output_len": args.random_output_len,
        "random_range_ratio": args.random_range_ratio,
        **metrics(args, completed),
    }
    print_summary(args, result)
    output_file = args.output_file or (
        f"{args.backend}_{datetime.now().strftime('%m%d')}_{args.num_prompts}_"
        f"{args.random_input_len}_{args.random_output_len}.jsonl"
    )
    with open(output_file, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(result) + "\n")
    return 0


def main() -> int:
    note_client("sglang.bench_serving")
    pause = float(os.environ.get("SGLANG_STANDIN_BENCH_SLEEP_S", "0"))
    if pause > 0:
        time.sleep(pause)
    return run(build_parser().parse_args())


if __name__ == "__main__":
    sys.exit(main())
