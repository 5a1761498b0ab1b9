"""Stand-in for `sglang.test.few_shot_gsm8k` (its `run_eval` and its CLI).

`run_eval(args)` reads the fields the real one reads and builds the server URL the way
the SGLang version in $SGLANG_STANDIN_VERSION does:

- up to 0.5.9: f"{args.host}:{args.port}", so a bare `127.0.0.1` fails ('unknown url
  type', from urllib);
- 0.5.10 to 0.5.20: a host with a scheme is used as is, a bare host gets `http://`;
- from 0.5.21: f"http://{args.host}:{args.port}", so `http://127.0.0.1` gives
  `http://http://127.0.0.1:PORT`, whose host does not resolve.

Like the real RuntimeEndpoint it first reads /get_model_info, then sends
min(num_questions, 3) few-shot prompts to /generate. It returns {"accuracy", "invalid",
"latency", "output_throughput"} with the accuracy $SGLANG_STANDIN_GSM8K_ACCURACY
(default 0.95) unrounded, prints `Accuracy: %.3f` and the rest as the real one does, and
dumps tmp_output_gsm8k.txt in the working directory. A request that fails is a wrong
answer: the accuracy is scaled by the share of questions answered. An accuracy that is not
a number (`1.2.3`) is returned as the string it is.

run_eval records its call with the argv of the process that runs it (sys.argv, the
calling script first) and the host and URL it used. $SGLANG_STANDIN_EVAL_CRASH=1 makes it
crash; $SGLANG_STANDIN_EVAL_SLEEP_S=<s> makes it sleep first.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

from .._standin import RequestError, http_json, note_client, version_tuple

MAX_REAL_REQUESTS = 3
FEW_SHOT = "Question: What is 40 plus 2?\nAnswer: 40 + 2 = 42. The answer is 42.\n\n"


def base_url(host: str, port: int) -> str:
    """The RuntimeEndpoint URL this SGLang version builds from --host and --port."""
    numbers = version_tuple()
    has_scheme = host.startswith(("http://", "https://"))
    if numbers < (0, 5, 10) or (numbers < (0, 5, 21) and has_scheme):
        return f"{host}:{port}"
    return f"http://{host}:{port}"


def run_eval(args: argparse.Namespace) -> dict[str, float | str]:
    if os.environ.get("SGLANG_STANDIN_EVAL_CRASH") == "1":
        msg = "standin: simulated evaluator crash"
        raise RuntimeError(msg)
    time.sleep(float(os.environ.get("SGLANG_STANDIN_EVAL_SLEEP_S") or "0"))
    base = base_url(args.host, args.port)
    note_client("python", list(sys.argv), host=args.host, url=base)
    _ = (args.data_path, args.num_shots, args.max_new_tokens, args.parallel)
    temperature = args.temperature if hasattr(args, "temperature") else 0
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
                "temperature": temperature,
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
    invalid = answers.count("") / max(sent, 1)
    acc: float | str = os.environ.get("SGLANG_STANDIN_GSM8K_ACCURACY") or "0.95"
    with contextlib.suppress(ValueError):  # else returned as it is
        acc = float(acc) * (1 - invalid)
    output_throughput = tokens / latency if latency > 0 else 0.0

    print(f"Accuracy: {acc:.3f}" if isinstance(acc, float) else f"Accuracy: {acc}")
    print(f"Invalid: {invalid:.3f}")
    print(f"Latency: {latency:.3f} s")
    print(f"Output throughput: {output_throughput:.3f} token/s")

    with open("tmp_output_gsm8k.txt", "w", encoding="utf-8") as handle:
        handle.writelines(answer + "\n" + "=" * 50 + "\n" for answer in answers)
    return {
        "accuracy": acc,
        "invalid": invalid,
        "latency": latency,
        "output_throughput": output_throughput,
    }


def main() -> int:
    default_host = "http://127.0.0.1" if version_tuple() < (0, 5, 10) else "127.0.0.1"
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-shots", type=int, default=5)
    parser.add_argument("--data-path", type=str)
    parser.add_argument("--num-questions", type=int, default=200)
    parser.add_argument("--max-new-tokens", type=int, default=512)
    parser.add_argument("--parallel", type=int, default=128)
    parser.add_argument("--host", type=str, default=default_host)
    parser.add_argument("--port", type=int, default=30000)
    parser.add_argument("--temperature", type=float, default=0.0)
    run_eval(parser.parse_args())
    return 0


if __name__ == "__main__":
    sys.exit(main())
