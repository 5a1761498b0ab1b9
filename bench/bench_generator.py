"""The generator's own speed: `make bench` (not part of `make test`).

Times, as medians of several runs in fresh processes (what a user waits for):
- the floor: `python3 -c 'import jinja2, jsonschema, ruamel.yaml, click'`;
- `sglang-ci render` and `sglang-ci check` of the shipped catalogs;
- `render` of synthetic catalogs of 100, 1,000 and 10,000 configs made here,
  and the growth ratio from 1,000 to 10,000 configs.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = 5


def timed(cmd: list[str], cwd: Path, runs: int = RUNS) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def synthetic(root: Path, n: int) -> Path:
    """A benchmark catalog of `n` configs (the shipped fragments, 10 cells each)."""
    shutil.copytree(ROOT / "catalogs", root / "catalogs")
    path = root / "catalogs/benchmark.yaml"
    text = path.read_text()
    head = text[: text.index("configs:\n")]
    lines = ["configs:"]
    for i in range(n):
        family = "deepseek" if i % 2 == 0 else "qwen"
        model = "deepseek-r1-fp8" if family == "deepseek" else "qwen3.5-397b-fp8"
        lines += [
            f"  - prefix: syn-{i:05d}",
            f"    display: Synthetic {i:05d}",
            "    suite: SGLang-OOB",
            f"    model: {model}",
            f"    parallel: {{tp: {4 if i % 4 < 2 else 8}}}",
            "    args: [trust_remote_code, aiter_runtime]"
            if family == "deepseek"
            else "    args: [qwen_reasoning]",
            "    env: [deepseek_common, quick_reduce_int4]"
            if family == "deepseek"
            else "    env: [qwen_common]",
        ]
    # The shipped Mesh configs stay, so every suite and preset keeps a config.
    mesh = text[
        text.index(
            "  # --------------------------------------------------------------- SGLang-Mesh"
        ) : text.index("# Cron groups")
    ]
    tail = """
schedules:
  - name: mesh-all
    title: Mesh, all
    cron: "0 14 * * 5"
    select: {suite: SGLang-Mesh}
presets:
  SGLang-OOB: []
  SGLang-Mesh:
    - {name: ds-all, aliases: [all], select: {}}
recipes:
  DeepSeek-R1: {family: deepseek, suite: SGLang-Mesh}
"""
    path.write_text(head + "\n".join(lines) + "\n" + mesh + tail)
    acc = root / "catalogs/accuracy.yaml"
    acc_text = acc.read_text()
    cases = acc_text[acc_text.index("cases:\n") :]
    keep = [block for block in cases.split("\n  - ")[1:] if "benchmark:" not in block]
    acc.write_text(acc_text[: acc_text.index("cases:\n")] + "cases:\n  - " + "\n  - ".join(keep))
    return root


def main() -> int:
    cli = [sys.executable, "-m", "generator"]
    floor = timed([sys.executable, "-c", "import jinja2, jsonschema, ruamel.yaml, click"], ROOT)
    print(f"import floor                      {floor * 1000:8.0f} ms")
    with tempfile.TemporaryDirectory() as tmp:
        seed = Path(tmp) / "seed"
        shutil.copytree(ROOT / "catalogs", seed / "catalogs")
        render = timed([*cli, "--root", str(seed), "render"], ROOT)
        check = timed([*cli, "--root", str(seed), "check"], ROOT)
        print(
            f"render, shipped catalogs          {render * 1000:8.0f} ms  "
            f"({render / floor:.1f}x the floor)"
        )
        print(
            f"check, shipped catalogs           {check * 1000:8.0f} ms  "
            f"({check / floor:.1f}x the floor)"
        )
        sizes: dict[int, float] = {}
        for n in (100, 1000, 10000):
            root = synthetic(Path(tmp) / f"syn{n}", n)
            runs = 3 if n < 10000 else 1
            sizes[n] = timed([*cli, "--root", str(root), "render"], ROOT, runs)
            print(f"render, {n:6d} synthetic configs  {sizes[n] * 1000:8.0f} ms")
        print(f"growth 1,000 -> 10,000 configs    {sizes[10000] / sizes[1000]:8.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
