"""The generator's own speed: `make bench` (not part of `make test`).

Times, as medians of several runs in fresh processes (what a user waits for):
- the floor, for reference: `python3 -c 'import jinja2, jsonschema, ruamel.yaml, click'`;
- `sglang-ci render` and `sglang-ci check` of the shipped catalogs (target: under 0.5 s),
  and where that render goes, stage by stage in this process: load, expand, render, and
  the integrity read-back of the workflows that render includes;
- `render` of synthetic catalogs of 100, 1,000 and 10,000 configs made here,
  and the growth ratio from 1,000 to 10,000 configs.

A render is timed over the files a first render wrote (as `make workflows` runs in a
checkout); the first render of each synthetic catalog, which creates every file, is shown
too. Prints a Markdown table of the figures and the targets.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator.catalog import load  # noqa: E402
from generator.expand import expand  # noqa: E402
from generator.render import integrity, render  # noqa: E402
from tests.helpers import copy_catalogs  # noqa: E402

RUNS = 5
MAX_SHIPPED_SECONDS = 0.5
MAX_GROWTH = 12.0
MAX_10K_SECONDS = 30.0


def timed(cmd: list[str], runs: int = RUNS) -> float:
    """Median wall time of `cmd`."""
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def synthetic(root: Path, n: int) -> Path:
    """A checkout whose benchmark catalog has `n` configs (the shipped fragments, 10 cells
    each)."""
    copy_catalogs(root, ROOT)
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


def stages() -> list[str]:
    """Medians of the shipped render's stages, in this process (imports done once)."""
    samples: dict[str, list[float]] = {"load": [], "expand": [], "render": [], "integrity": []}
    for _ in range(RUNS):
        t0 = time.perf_counter()
        catalog = load(ROOT)
        t1 = time.perf_counter()
        expanded = expand(catalog)
        t2 = time.perf_counter()
        outputs = render(expanded, ROOT)
        t3 = time.perf_counter()
        integrity.check(catalog, integrity.read_back(outputs))
        t4 = time.perf_counter()
        for name, seconds in zip(samples, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            samples[name].append(seconds)
    what = {
        "load": "stage: load the shipped catalogs (YAML parse, schema)",
        "expand": "stage: expand",
        "render": "stage: render (integrity read-back included)",
        "integrity": "stage: of which the integrity read-back of the workflows",
    }
    return [row(what[k], statistics.median(v), "", None) for k, v in samples.items()]


def row(what: str, seconds: float, target: str, met: bool | None) -> str:
    verdict = "" if met is None else ("met" if met else "NOT met")
    return f"| {what} | {seconds * 1000:,.0f} ms | {target} | {verdict} |"


def main() -> int:
    cli = [sys.executable, "-m", "generator"]
    rows = []
    floor = timed([sys.executable, "-c", "import jinja2, jsonschema, ruamel.yaml, click"])
    rows.append(row("import floor (jinja2, jsonschema, ruamel.yaml, click)", floor, "", None))
    with tempfile.TemporaryDirectory() as tmp:
        seed = copy_catalogs(Path(tmp) / "seed", ROOT)
        timed([*cli, "--root", str(seed), "render"], 1)
        render = timed([*cli, "--root", str(seed), "render"])
        check = timed([*cli, "--root", str(seed), "check"])
        for what, seconds in (("render", render), ("check", check)):
            rows.append(
                row(
                    f"{what}, shipped catalogs",
                    seconds,
                    f"< {MAX_SHIPPED_SECONDS * 1000:,.0f} ms",
                    seconds < MAX_SHIPPED_SECONDS,
                )
            )
        rows += stages()
        sizes: dict[int, float] = {}
        for n in (100, 1000, 10000):
            root = synthetic(Path(tmp) / f"syn{n}", n)
            first = timed([*cli, "--root", str(root), "render"], 1)
            rows.append(
                row(f"first render, {n:,} synthetic configs (creates every file)", first, "", None)
            )
            sizes[n] = timed([*cli, "--root", str(root), "render"], 3)
            big = n == 10000
            rows.append(
                row(
                    f"render, {n:,} synthetic configs",
                    sizes[n],
                    f"< {MAX_10K_SECONDS:g} s" if big else "",
                    sizes[n] < MAX_10K_SECONDS if big else None,
                )
            )
    growth = sizes[10000] / sizes[1000]
    rows.append(
        f"| growth, 1,000 to 10,000 configs | {growth:.1f}x | <= {MAX_GROWTH:g}x | "
        f"{'met' if growth <= MAX_GROWTH else 'NOT met'} |"
    )
    print("| measurement (median wall time) | figure | target | |")
    print("|---|---:|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
