"""GSM8K with SGLang's own few-shot evaluator, gated on the unrounded accuracy.

Calls `sglang.test.few_shot_gsm8k.run_eval` of the image's SGLang, as SGLang's nightly
accuracy tests do, and writes the metrics it returns (`accuracy` unrounded, `invalid`,
`latency`, `output_throughput`) to `--metrics-file` as JSON; the launcher gates on that
file. run_eval itself prints `Accuracy: %.3f` and the rest.

The server URL: SGLang up to 0.5.9 builds it as f"{host}:{port}", so the host must carry
the scheme (`http://127.0.0.1`); 0.5.10 normalizes either form; from 0.5.21 only a bare
host works (`127.0.0.1`). The form is chosen by `sglang.__version__`.

Runs with the image's Python (standard library and the installed sglang only).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

HOST = "127.0.0.1"
BARE_HOST_FROM = (0, 5, 10)


def version_tuple(version: str) -> tuple[int, ...]:
    """The leading numbers of a version string: '0.5.8.post1' -> (0, 5, 8)."""
    match = re.match(r"v?(\d+(?:\.\d+)*)", version.strip())
    return tuple(int(n) for n in match[1].split(".")) if match else ()


def host_for(version: str) -> str:
    """The --host form this SGLang version's few_shot_gsm8k expects."""
    numbers = version_tuple(version)
    if numbers and numbers[:3] < BARE_HOST_FROM:
        return f"http://{HOST}"
    return HOST


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="few_shot_gsm8k.py")
    parser.add_argument("--num-shots", type=int, required=True)
    parser.add_argument("--num-questions", type=int, required=True)
    parser.add_argument("--parallel", type=int, required=True)
    parser.add_argument("--max-new-tokens", type=int, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--metrics-file", type=Path, required=True)
    parser.add_argument("--data-path", default=None)
    args = parser.parse_args(argv)

    # Imported here: only the image has sglang; the version helpers above run anywhere.
    import sglang  # noqa: PLC0415 (the image's own package)
    from sglang.test.few_shot_gsm8k import run_eval  # noqa: PLC0415 (the image's own package)

    version = str(getattr(sglang, "__version__", ""))
    host = host_for(version)
    print(f"few_shot_gsm8k.py: sglang {version or '(no version)'}: --host {host}", flush=True)
    metrics = run_eval(
        argparse.Namespace(
            host=host,
            port=args.port,
            data_path=args.data_path,
            num_questions=args.num_questions,
            num_shots=args.num_shots,
            max_new_tokens=args.max_new_tokens,
            parallel=args.parallel,
            temperature=0.0,
        )
    )
    out: dict[str, float | str | None] = {}
    for key, value in dict(metrics).items():
        try:
            number = float(value)  # numpy floats too
        except (TypeError, ValueError):
            continue  # not a metric the launcher reads
        out[str(key)] = number if math.isfinite(number) else None
    out.update(sglang_version=version or None, host=host)
    args.metrics_file.write_text(json.dumps(out) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
