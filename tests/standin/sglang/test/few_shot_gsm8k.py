"""Stand-in for `python -m sglang.test.few_shot_gsm8k`.

Same flags as the real tool. Like the real RuntimeEndpoint it first reads
/get_model_info, then sends min(--num-questions, 3) few-shot GSM8K prompts to
/generate. The accuracy it prints comes from $SGLANG_STANDIN_GSM8K_ACCURACY
(default 0.95); the invalid rate is the share of failed requests. Output
format, 3-decimal rounding and the tmp_output_gsm8k.txt dump in the working
directory follow the real tool. $SGLANG_STANDIN_EVAL_CRASH=1 makes it crash.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .._standin import RequestError, http_json, note_client

MAX_REAL_REQUESTS = 3
FEW_SHOT = "Question: What is 40 plus 2?\nAnswer: 40 + 2 = 42. The answer is 42.\n\n"


def run_eval(args: argparse.Namespace) -> dict[str, float]:
    if os.environ.get("SGLANG_STANDIN_EVAL_CRASH") == "1":
        raise RuntimeError("standin: simulated evaluator crash")
    base = f"{args.host}:{args.port}"
    http_json(f"{base}/get_model_info")
    sent = min(args.num_questions, MAX_REAL_REQUESTS)
    tic = time.perf_counter()
    answers: list[str] = []
    tokens = 0
    for i in range(sent):
        prompt = FEW_SHOT * args.num_shots + f"Question: standin question {i}?\nAnswer:"
        payload = {
            "text": prompt,
            "sampling_params": {
                "max_new_tokens": args.max_new_tokens,
                "stop": ["Question", "Assistant:", "<|separator|>"],
                "temperature": args.temperature,
            },
        }
        try:
            out = http_json(f"{base}/generate", payload)
        except RequestError as exc:
            print(f"Request {i} failed with error: {exc!r}")
            answers.append("")
            continue
        answers.append(str(out.get("text", "")))
        tokens += int(out.get("meta_info", {}).get("completion_tokens", 0))
    latency = time.perf_counter() - tic
    acc = float(os.environ.get("SGLANG_STANDIN_GSM8K_ACCURACY", "0.95"))
    invalid = answers.count("") / max(sent, 1)
    output_throughput = tokens / latency if latency > 0 else 0.0

    print(f"Accuracy: {acc:.3f}")
    print(f"Invalid: {invalid:.3f}")
    print(f"Latency: {latency:.3f} s")
    print(f"Output throughput: {output_throughput:.3f} token/s")

    with open("tmp_output_gsm8k.txt", "w", encoding="utf-8") as handle:
        for answer in answers:
            handle.write(answer + "\n" + "=" * 50 + "\n")
    return {"accuracy": acc, "latency": latency, "output_throughput": output_throughput}


def main() -> int:
    note_client("sglang.test.few_shot_gsm8k")
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-shots", type=int, default=5)
    parser.add_argument("--data-path", type=str)
    parser.add_argument("--num-questions", type=int, default=200)
    parser.add_argument("--max-new-tokens", type=int, default=512)
    parser.add_argument("--parallel", type=int, default=128)
    parser.add_argument("--host", type=str, default="http://127.0.0.1")
    parser.add_argument("--port", type=int, default=30000)
    parser.add_argument("--temperature", type=float, default=0.0)
    run_eval(parser.parse_args())
    return 0


if __name__ == "__main__":
    sys.exit(main())
