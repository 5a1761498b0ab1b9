"""Stand-in for `lm_eval` (python -m lm_eval / the lm_eval console script).

Accepts the real CLI flag names and the `local-completions` model arguments of
lm-eval 0.4.5 and later (`num_concurrent`, `max_retries`, `tokenized_requests`,
`trust_remote_code=True`, ...; True/False read as booleans), loads the tokenizer of
`model` (a local path that is not a directory fails, as AutoTokenizer does), sends two
completion requests to the `base_url` (a failing request makes it exit non-zero, as
lm-eval does after its retries), prints the results table and writes the aggregated
results where lm-eval writes them:
<output_path>/<sanitized model name>/results_<ISO time with ':' as '-'>.json.

results[<task>]["exact_match,flexible-extract"] is $SGLANG_STANDIN_LMEVAL_SCORE
(default 0.95), read as JSON when it is JSON (`NaN`, `"x"`, `[1]`), else taken as the
string it is (`1.2.3`). $SGLANG_STANDIN_EVAL_CRASH=1 makes it crash;
$SGLANG_STANDIN_EVAL_SLEEP_S=<s> makes it sleep first, so a run can be cancelled;
$SGLANG_STANDIN_EVAL_HANG=1 makes it hang for good, ignoring SIGTERM, with a child that
has left its process group (its pid in $SGLANG_STANDIN_PIDS).
$SGLANG_STANDIN_LMEVAL_RESULTS=<mode> writes a spoiled results file (see SPOILED) and
prints a matching line. $SGLANG_STANDIN_PRINT=<text> is printed first, as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any

# What $SGLANG_STANDIN_LMEVAL_RESULTS writes instead of the results file.
SPOILED = {
    "empty": b"",
    "garbage": b"Accuracy: 1.2.3 {not json",
    "non-utf8": b'{"results": {"\xff\xfe": 1}}',
    "nested": b"[" * 100_000 + b"]" * 100_000,
    "no-task": b'{"results": {}}',
    "huge": b" " * (8 * 1024 * 1024) + b'{"results": 1}',
}
LINGER_CODE = """
import os, signal, time
os.setsid()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
path = os.environ.get("SGLANG_STANDIN_PIDS")
if path:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(f"{os.getpid()}\\n")
while True:
    time.sleep(60)
"""


def hang() -> None:
    """Never finish: SIGTERM ignored, a child in a session of its own."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    subprocess.Popen([sys.executable, "-c", LINGER_CODE])
    print("standin: lm_eval hangs", flush=True)
    while True:
        time.sleep(60)


def configured_score() -> object:
    text = os.environ.get("SGLANG_STANDIN_LMEVAL_SCORE", "0.95")
    try:
        return json.loads(text)
    except ValueError:
        return text


def note_client(tool: str) -> None:
    """Record this run like the sglang stand-ins do: pid and {"tool", "argv", "cwd", "pid"}."""
    pids = os.environ.get("SGLANG_STANDIN_PIDS")
    if pids:
        with open(pids, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
    record = os.environ.get("SGLANG_STANDIN_CLIENT_RECORD")
    if record:
        line = {"tool": tool, "argv": sys.argv[1:], "cwd": str(Path.cwd()), "pid": os.getpid()}
        with open(record, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


def http_json(url: str, payload: dict[str, Any]) -> dict[str, Any]:
    """POST JSON and decode the JSON object answer (errors propagate, as after retries)."""
    request = urllib.request.Request(
        url,
        data=json.dumps(payload).encode("utf-8"),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        body: Any = json.loads(response.read().decode("utf-8"))
    if not isinstance(body, dict):
        msg = f"{url}: expected a JSON object"
        raise ValueError(msg)
    return body


def parse_model_args(text: str) -> dict[str, str | bool]:
    """lm-eval's simple_parse_args_string: k=v pairs, 'True'/'False' as booleans."""
    pairs = (item.split("=", 1) for item in text.split(",") if item)
    out: dict[str, str | bool] = {}
    for key, value in pairs:
        text_value = value.strip()
        out[key.strip()] = {"True": True, "False": False}.get(text_value, text_value)
    return out


def model_name(model_args: str) -> str:
    for prefix in ("peft=", "delta=", "pretrained=", "model=", "path=", "engine="):
        if prefix in model_args:
            return model_args.split(prefix)[1].split(",", maxsplit=1)[0]
    return ""


def sanitize_model_name(name: str) -> str:
    return re.sub(r"[\"<>:/\|\\?\*\[\]]+", "__", name)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lm_eval")
    parser.add_argument("--model", "-m", type=str, default="hf")
    parser.add_argument("--tasks", "-t", type=str, default=None)
    parser.add_argument("--model_args", "-a", type=str, default="")
    parser.add_argument("--num_fewshot", "-f", type=int, default=None)
    parser.add_argument("--batch_size", "-b", type=str, default="1")
    parser.add_argument("--max_batch_size", type=int, default=None)
    parser.add_argument("--device", type=str, default=None)
    parser.add_argument("--output_path", "-o", type=str, default=None)
    parser.add_argument("--limit", "-L", type=float, default=None)
    parser.add_argument("--log_samples", "-s", action="store_true")
    parser.add_argument("--seed", type=str, default="0,1234,1234,1234")
    parser.add_argument("--gen_kwargs", type=str, default=None)
    parser.add_argument("--apply_chat_template", type=str, nargs="?", const=True, default=False)
    parser.add_argument("--fewshot_as_multiturn", action="store_true")
    parser.add_argument("--trust_remote_code", action="store_true")
    parser.add_argument("--confirm_run_unsafe_code", action="store_true")
    parser.add_argument("--verbosity", "-v", type=str, default=None)
    return parser


def write_results(output_path: str, model_args: str, results: dict[str, Any]) -> Path:
    # Local time, as lm-eval names its results file.
    date_id = datetime.now().isoformat().replace(":", "-")  # noqa: DTZ005 (as lm-eval does)
    path = Path(output_path)
    if path.suffix == ".json":
        path.parent.mkdir(parents=True, exist_ok=True)
        target = path.with_name(f"{path.stem}_{date_id}.json")
    else:
        path = path / sanitize_model_name(model_name(model_args))
        path.mkdir(parents=True, exist_ok=True)
        target = path / f"results_{date_id}.json"
    target.write_text(json.dumps(results, indent=2, ensure_ascii=False), encoding="utf-8")
    return target


def main() -> int:
    note_client("lm_eval")
    injected = os.environ.get("SGLANG_STANDIN_PRINT")
    if injected:
        print(injected, flush=True)
    time.sleep(float(os.environ.get("SGLANG_STANDIN_EVAL_SLEEP_S", "0")))
    if os.environ.get("SGLANG_STANDIN_EVAL_HANG") == "1":
        hang()
    args = build_parser().parse_args()
    if os.environ.get("SGLANG_STANDIN_EVAL_CRASH") == "1":
        msg = "standin: simulated evaluator crash"
        raise RuntimeError(msg)
    model_args = parse_model_args(args.model_args)
    base_url = str(model_args["base_url"])
    model = str(model_args.get("tokenizer") or model_args.get("model") or "")
    if model.startswith("/") and not Path(model).is_dir():
        msg = f"Can't load tokenizer for '{model}': not a directory"
        raise OSError(msg)
    for i in range(2):
        http_json(
            base_url,
            {
                "model": model_args.get("model"),
                "prompt": f"Question: standin question {i}?\nAnswer:",
                "max_tokens": 256,
                "temperature": 0.0,
                "stop": ["Question:", "</s>", "<|im_end|>"],
            },
        )
    score = configured_score()
    shots = args.num_fewshot if args.num_fewshot is not None else 5
    tasks = [t for t in (args.tasks or "").split(",") if t]
    started = time.perf_counter()
    results: dict[str, Any] = {
        "results": {
            task: {
                "alias": task,
                "exact_match,strict-match": round(score - 0.01, 4)
                if isinstance(score, float)
                else score,
                "exact_match_stderr,strict-match": 0.0065,
                "exact_match,flexible-extract": score,
                "exact_match_stderr,flexible-extract": 0.006,
            }
            for task in tasks
        },
        "group_subtasks": {task: [] for task in tasks},
        "versions": dict.fromkeys(tasks, 3.0),
        "n-shot": dict.fromkeys(tasks, shots),
        "higher_is_better": {task: {"exact_match": True} for task in tasks},
        "n-samples": {task: {"original": 1319, "effective": 1319} for task in tasks},
        "config": {
            "model": args.model,
            "model_args": args.model_args,
            "batch_size": args.batch_size,
            "limit": args.limit,
        },
        "date": time.time(),
        "model_source": args.model,
        "model_name": model_name(args.model_args),
        "model_name_sanitized": sanitize_model_name(model_name(args.model_args)),
        "total_evaluation_time_seconds": str(time.perf_counter() - started),
    }
    print(
        f"{args.model} ({args.model_args}), gen_kwargs: ({args.gen_kwargs}), "
        f"limit: {args.limit}, num_fewshot: {args.num_fewshot}, batch_size: {args.batch_size}"
    )
    print("|Tasks|Version|     Filter     |n-shot|  Metric   |   |Value |   |Stderr|")
    print("|-----|------:|----------------|-----:|-----------|---|-----:|---|-----:|")
    for task in tasks:
        row = results["results"][task]
        flexible = row["exact_match,flexible-extract"]
        strict = row["exact_match,strict-match"]
        cells = f"{shots:6d}|exact_match|↑  "
        print(f"|{task}|      3|flexible-extract|{cells}|{shown(flexible)}|±  |0.0060|")
        print(f"|     |       |strict-match    |{cells}|{shown(strict)}|±  |0.0065|")
    if args.output_path:
        target = write_results(args.output_path, args.model_args, results)
        spoiled = SPOILED.get(os.environ.get("SGLANG_STANDIN_LMEVAL_RESULTS") or "")
        if spoiled is not None:
            target.write_bytes(spoiled)
            sys.stdout.buffer.write(spoiled[:4096] + b"\n")
    return 0


def shown(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


if __name__ == "__main__":
    sys.exit(main())
