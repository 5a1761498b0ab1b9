"""Stand-in for `python -m sglang.bench_serving`.

Parses the real flags strictly (an unknown flag exits 2, as argparse does). Like the
real tool it fetches the model id from /v1/models when --model is missing (exit 1 when
unreachable), loads the tokenizer of --tokenizer or --model (a local path that is not a
directory fails), and builds the dataset: `random-ids` needs nothing, while `random` and
`sharegpt` need ShareGPT, which the real tool downloads from the Hugging Face hub unless
--dataset-path names a JSON file; the stand-in fails loudly instead of downloading.

Then it sends one warm-up request when --warmup-requests > 0 (all warm-ups failing
raises ValueError, as the real tool does) and min(--num-prompts, 3) real requests, to
/v1/completions for the `sglang-oai` backend and /generate for `sglang`. Failed requests
lower `completed`. After the run it reads the server's info, as the real tool does for
sglang backends (/get_server_info up to 0.5.9, /server_info from 0.5.10; a dead server
is a traceback and no result line), takes `accept_length` from
internal_states[0]["avg_spec_accept_length"], prints the "Serving Benchmark Result"
block and appends one JSON line with the real key names to --output-file
(`request_rate` inf is written as a bare `Infinity`, as json.dumps does).

The numbers are deterministic functions of ISL, OSL and concurrency, and of the server's
`standin_slower_percent` (internal_states[0] of its server info): a server N percent
slower gives N percent less throughput and latencies 1 / (1 - N/100) times longer.
$SGLANG_STANDIN_BENCH_FAIL_CONC=<concurrency> makes the run crash for that
--max-concurrency; $SGLANG_STANDIN_BENCH_SLEEP_S=<s> makes it sleep first;
$SGLANG_STANDIN_BENCH_SET='{"<concurrency>" or "*": {key: value}}' overrides keys of the
result line (JSON, so NaN is allowed); $SGLANG_STANDIN_BENCH_DROP=key,... leaves keys out.
$SGLANG_STANDIN_BENCH_HANG=<concurrency> makes the run hang for good at that
--max-concurrency. $SGLANG_STANDIN_BENCH_OUTPUT='{"<concurrency>": "<mode>"}' spoils the
output file at that concurrency (see MALFORMED), and prints a matching line to stdout.
$SGLANG_STANDIN_PRINT=<text> is printed first, as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from ._standin import RequestError, http_json, note_client, print_injected, version_tuple

MAX_REAL_REQUESTS = 3
BACKENDS = {
    "sglang": "/generate",
    "sglang-native": "/generate",
    "sglang-oai": "/v1/completions",
    "sglang-oai-chat": "/v1/chat/completions",
    "vllm": "/v1/completions",
}
DATASETS = (
    "sharegpt",
    "custom",
    "random",
    "random-ids",
    "generated-shared-prefix",
    "mmmu",
    "image",
    "mooncake",
)
SHAREGPT = "anon8231489123/ShareGPT_Vicuna_unfiltered/ShareGPT_V3_unfiltered_cleaned_split.json"
HUGE_BYTES = 8 * 1024 * 1024
# What $SGLANG_STANDIN_BENCH_OUTPUT writes instead of the result line: bytes, or None to
# write no file at all. The modes that keep the line change or drop one of its values.
MALFORMED: dict[str, bytes | None] = {
    "missing": None,
    "empty": b"",
    "garbage": b"Accuracy: 1.2.3 {not json\n",
    "non-utf8": b'{"completed": 2, "note": "\xff\xfe"}\n',
    "huge": b"x" * HUGE_BYTES,
    "nested": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "list": b"[1, 2, 3]\n",
}
SPOILED_VALUES: dict[str, dict[str, Any]] = {
    "negative": {"output_throughput": -5.0},
    "string": {"median_ttft_ms": "12.5"},
    "completed-float": {"completed": 2.5},
    "no-completed": {"completed": None},
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Benchmark the online serving throughput.")
    parser.add_argument("--backend", type=str, choices=list(BACKENDS), default="sglang")
    parser.add_argument("--base-url", type=str, default=None)
    parser.add_argument("--host", type=str, default="0.0.0.0")
    parser.add_argument("--port", type=int)
    parser.add_argument("--dataset-name", type=str, choices=DATASETS, default="sharegpt")
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
    parser.add_argument("--return-logprob", action="store_true")
    parser.add_argument("--seed", type=int, default=42 if version_tuple() >= (0, 5, 14) else 1)
    parser.add_argument("--disable-ignore-eos", action="store_true")
    parser.add_argument("--extra-request-body", type=str)
    parser.add_argument("--apply-chat-template", action="store_true")
    parser.add_argument("--flush-cache", action="store_true")
    parser.add_argument("--warmup-requests", type=int, default=1)
    parser.add_argument("--tokenize-prompt", action="store_true")
    parser.add_argument("--tag", type=str, default=None)
    return parser


def load_tokenizer(name: str | None) -> None:
    """A local tokenizer path must be a directory (AutoTokenizer.from_pretrained fails
    otherwise); a hub id is taken as resolvable."""
    if name is None:
        msg = "no tokenizer: neither --tokenizer nor --model"
        raise ValueError(msg)
    if name.startswith(("/", ".")) and not Path(name).is_dir():
        msg = f"Can't load tokenizer for '{name}': not a directory"
        raise OSError(msg)


def sample_requests(args: argparse.Namespace) -> None:
    """The dataset: `random` and `sharegpt` sample ShareGPT conversations."""
    if args.dataset_name in ("random", "sharegpt"):
        path = Path(args.dataset_path) if args.dataset_path else None
        if path is None or not path.is_file():
            msg = (
                f"standin: --dataset-name {args.dataset_name} downloads {SHAREGPT} from the "
                "Hugging Face hub without --dataset-path; refusing (use random-ids)"
            )
            raise RuntimeError(msg)


def request(api_url: str, args: argparse.Namespace, index: int, output_len: int) -> bool:
    if args.backend == "sglang-oai":
        payload: dict[str, Any] = {
            "model": args.model,
            "prompt": f"random prompt {index}",
            "temperature": 0.0,
            "best_of": 1,
            "max_tokens": output_len,
            "stream": not args.disable_stream,
            "ignore_eos": not args.disable_ignore_eos,
        }
    else:
        payload = {
            "text": f"random prompt {index}",
            "sampling_params": {
                "temperature": 0.0,
                "max_new_tokens": output_len,
                "ignore_eos": not args.disable_ignore_eos,
            },
            "stream": not args.disable_stream,
        }
    try:
        http_json(api_url, payload)
    except RequestError as exc:
        print(f"request {index} failed: {exc!r}", file=sys.stderr)
        return False
    return True


def metrics(args: argparse.Namespace, completed: int, slower: float = 0.0) -> dict[str, Any]:
    isl, osl = args.random_input_len, args.random_output_len
    conc = args.max_concurrency or args.num_prompts
    load = (1.0 + conc / 64.0) / (1.0 - slower / 100.0)
    ttft = (5.0 + 0.02 * isl) * load
    e2e = ttft + 1.0 * load * max(osl - 1, 0)
    tpot = (e2e - ttft) / max(osl - 1, 1)
    duration = max(args.num_prompts / conc, 1.0) * e2e / 1000.0
    nan = float("nan")
    done = bool(completed)
    out: dict[str, Any] = {
        "duration": duration,
        "completed": completed,
        "total_input_tokens": completed * isl,
        "total_input_text_tokens": completed * isl,
        "total_input_vision_tokens": 0,
        "total_output_tokens": completed * osl,
        "total_output_tokens_retokenized": completed * osl,
        "request_throughput": completed / duration,
        "input_throughput": completed * isl / duration,
        "output_throughput": completed * osl / duration,
        "total_throughput": completed * (isl + osl) / duration,
        "mean_e2e_latency_ms": e2e if done else nan,
        "median_e2e_latency_ms": e2e * 0.98 if done else nan,
        "std_e2e_latency_ms": e2e * 0.05 if done else nan,
        "p90_e2e_latency_ms": e2e * 1.1 if done else nan,
        "p99_e2e_latency_ms": e2e * 1.2 if done else nan,
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
    }
    if version_tuple() >= (0, 5, 23):
        out.update(
            p95_e2e_latency_ms=e2e * 1.15 if done else nan,
            p90_ttft_ms=ttft * 1.1,
            p95_ttft_ms=ttft * 1.15,
            p90_tpot_ms=tpot * 1.1,
            p95_tpot_ms=tpot * 1.15,
            p90_itl_ms=tpot * 1.05,
        )
    return out


def server_info(base_url: str) -> dict[str, Any]:
    """What the real tool reads after the run (nothing catches a dead server)."""
    path = "/server_info" if version_tuple() >= (0, 5, 10) else "/get_server_info"
    return http_json(base_url + path)


def slower_percent(info: dict[str, Any] | None) -> float:
    states = (info or {}).get("internal_states") or [{}]
    return float(states[0].get("standin_slower_percent") or 0.0)


def accept_length(info: dict[str, Any]) -> float | None:
    if "decode" in info:
        info = info["decode"][0]
    states = info.get("internal_states")
    if states:
        value = states[0].get("avg_spec_accept_length")
        return None if value is None else float(value)
    return None


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
    print(num.format("Total token throughput (tok/s):", result["total_throughput"]))
    print(num.format("Concurrency:", result["concurrency"]))
    if result["accept_length"] is not None:
        print(num.format("Accept length:", result["accept_length"]))
    print("{s:{c}^{n}}".format(s="Time to First Token", n=50, c="-"))
    print(num.format("Mean TTFT (ms):", result["mean_ttft_ms"]))
    print(num.format("Median TTFT (ms):", result["median_ttft_ms"]))
    print(num.format("P99 TTFT (ms):", result["p99_ttft_ms"]))
    print("=" * 50)


def overrides(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    table = json.loads(os.environ.get("SGLANG_STANDIN_BENCH_SET") or "{}")
    chosen: dict[str, Any] = {**table.get("*", {}), **table.get(str(args.max_concurrency), {})}
    drop = [k for k in (os.environ.get("SGLANG_STANDIN_BENCH_DROP") or "").split(",") if k]
    return chosen, drop


def run(args: argparse.Namespace) -> int:
    fail_conc = os.environ.get("SGLANG_STANDIN_BENCH_FAIL_CONC")
    if fail_conc is not None and fail_conc == str(args.max_concurrency):
        msg = f"standin: simulated benchmark crash at concurrency {fail_conc}"
        raise RuntimeError(msg)
    port = args.port if args.port is not None else 30000
    base_url = args.base_url or f"http://{args.host}:{port}"
    if args.model is None:
        model_url = f"{base_url}/v1/models"
        try:
            model_list = http_json(model_url).get("data", [])
            args.model = model_list[0]["id"] if model_list else None
        except RequestError as exc:
            print(f"Failed to fetch model from {model_url}. Error: {exc}")
            print("Please specify the correct host and port using `--host` and `--port`.")
            return 1
    print(f"benchmark_args={args}")
    load_tokenizer(args.tokenizer if args.tokenizer is not None else args.model)
    sample_requests(args)
    api_url = base_url + BACKENDS[args.backend]
    print(f"Starting warmup with {args.warmup_requests} sequences...")
    warm_len = min(args.random_output_len, 32)
    if args.warmup_requests > 0 and not request(api_url, args, -1, warm_len):
        msg = "Warmup failed - Please make sure benchmark arguments are correctly specified."
        raise ValueError(msg)
    print(f"Warmup completed with {args.warmup_requests} sequences. Starting main benchmark run...")
    sent = min(args.num_prompts, MAX_REAL_REQUESTS)
    ok = sum(request(api_url, args, i, args.random_output_len) for i in range(sent))
    completed = args.num_prompts if ok == sent else (args.num_prompts * ok) // max(sent, 1)
    info = server_info(base_url) if "sglang" in args.backend else None
    result: dict[str, Any] = {
        "tag": args.tag,
        "backend": args.backend,
        "dataset_name": args.dataset_name,
        "request_rate": args.request_rate,
        "max_concurrency": args.max_concurrency,
        "sharegpt_output_len": args.sharegpt_output_len,
        "random_input_len": args.random_input_len,
        "random_output_len": args.random_output_len,
        "random_range_ratio": args.random_range_ratio,
        "server_info": info,
        **metrics(args, completed, slower_percent(info)),
        "accept_length": accept_length(info) if info is not None else None,
        "max_output_tokens_per_s": 0.0,
        "max_concurrent_requests": args.max_concurrency or args.num_prompts,
    }
    chosen, drop = overrides(args)
    result.update(chosen)
    spoil = json.loads(os.environ.get("SGLANG_STANDIN_BENCH_OUTPUT") or "{}").get(
        str(args.max_concurrency)
    )
    print_summary(args, result)
    result.update(SPOILED_VALUES.get(spoil, {}))
    for key in drop:
        result.pop(key, None)
    if result.get("completed", 0) is None:
        result.pop("completed")
    output_file = args.output_file or (
        # Local time, as bench_serving names its default output file.
        f"{args.backend}_{datetime.now().strftime('%m%d')}_{args.num_prompts}_"  # noqa: DTZ005 (see above)
        f"{args.random_input_len}_{args.random_output_len}.jsonl"
    )
    if spoil in MALFORMED:
        return write_malformed(output_file, MALFORMED[spoil])
    with open(output_file, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(result) + "\n")
    return 0


def write_malformed(output_file: str, data: bytes | None) -> int:
    """Write `data` as the whole output (None: no file), and the same bytes, cut, to
    stdout, which the launcher echoes."""
    sys.stdout.flush()
    sys.stdout.buffer.write((data or b"")[: 2 * 1024 * 1024] + b"\n")
    sys.stdout.buffer.flush()
    if data is not None:
        with open(output_file, "wb") as handle:
            handle.write(data)
    return 0


def main() -> int:
    note_client("sglang.bench_serving")
    print_injected()
    pause = float(os.environ.get("SGLANG_STANDIN_BENCH_SLEEP_S", "0"))
    if pause > 0:
        time.sleep(pause)
    args = build_parser().parse_args()
    if os.environ.get("SGLANG_STANDIN_BENCH_HANG") == str(args.max_concurrency):
        print(f"standin: hanging at concurrency {args.max_concurrency}", flush=True)
        while True:
            time.sleep(60)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
