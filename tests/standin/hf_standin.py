"""Stand-in for Hugging Face's `hf` CLI (`python -m hf_standin`, wrapped by bin/hf).

`hf download <repo id> --local-dir <dir>` writes a small complete snapshot into <dir>:
config.json, model.safetensors.index.json whose weight map names two shard files, and
the two shards. Each call is recorded as one JSON line {"argv", "pid", "start", "end"}
in $SGLANG_STANDIN_HF_RECORD ("end" is null for a call that failed).

$SGLANG_STANDIN_HF_SLEEP_S=<s> sleeps before writing (so launchers can overlap);
$SGLANG_STANDIN_HF_FAIL=1 writes config.json and the first shard only, then exits 1, as
an interrupted download leaves a directory behind. $SGLANG_STANDIN_PRINT=<text> is
printed first, as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

SHARDS = ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")
INDEX = "model.safetensors.index.json"


def write_snapshot(directory: Path, repo_id: str, *, shards: int = len(SHARDS)) -> None:
    """config.json, the weights index naming both shards, and the first `shards` shards."""
    directory.mkdir(parents=True, exist_ok=True)
    config = {"_name_or_path": repo_id, "architectures": ["StandinForCausalLM"]}
    (directory / "config.json").write_text(json.dumps(config) + "\n", encoding="utf-8")
    weight_map = {f"model.layers.{i}.weight": name for i, name in enumerate(SHARDS)}
    index = {"metadata": {"total_size": 16}, "weight_map": weight_map}
    (directory / INDEX).write_text(json.dumps(index) + "\n", encoding="utf-8")
    for name in SHARDS[:shards]:
        (directory / name).write_bytes(b"\0" * 8)


def record(argv: list[str], start: float, end: float | None) -> None:
    path = os.environ.get("SGLANG_STANDIN_HF_RECORD")
    if path:
        line = json.dumps({"argv": argv, "pid": os.getpid(), "start": start, "end": end})
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="hf")
    commands = parser.add_subparsers(dest="command", required=True)
    download = commands.add_parser("download")
    download.add_argument("repo_id")
    download.add_argument("filenames", nargs="*")
    download.add_argument("--local-dir", required=True)
    download.add_argument("--revision", default=None)
    download.add_argument("--token", default=None)
    args = parser.parse_args(args_list)
    start = time.time()
    injected = os.environ.get("SGLANG_STANDIN_PRINT")
    if injected:
        print(injected, flush=True)
    time.sleep(float(os.environ.get("SGLANG_STANDIN_HF_SLEEP_S") or "0"))
    directory = Path(args.local_dir)
    if os.environ.get("SGLANG_STANDIN_HF_FAIL") == "1":
        write_snapshot(directory, args.repo_id, shards=1)
        record(args_list, start, None)
        print(f"standin: download of {args.repo_id} failed half-way", file=sys.stderr)
        return 1
    write_snapshot(directory, args.repo_id)
    record(args_list, start, time.time())
    print(str(directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
