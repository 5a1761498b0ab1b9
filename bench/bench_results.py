"""The results commands at the scale of a year: `make bench` (not part of `make test`).

Writes a synthetic year of nightly history (365 runs x 431 points, the records of
tests/results_gen.py) and a current run, then times, as medians of fresh processes:
- `results summarize` of the current run (431 records, validated with jsonschema);
- `results compare --history --current` (target: under 10 s);
- `results report --history --current --out` (target: under 30 s);
- `results thresholds --history`, which reads every history file.
Prints a Markdown table of the figures and the targets.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.results_gen import Point, Run, Shape, point_record, write_run  # noqa: E402

RUNS = 365
MAX_COMPARE_SECONDS = 10.0
MAX_REPORT_SECONDS = 30.0


def points() -> list[Point]:
    """431 points: 43 configs x 2 pairs x 5 concurrencies (every fourth config MTP), and
    one single-point config."""
    out = []
    for i in range(43):
        mtp = i % 4 == 0
        for isl, osl in ((1024, 1024), (8192, 1024)):
            for c in (4, 16, 32, 64, 128):
                out.append(
                    Point(
                        config=f"cfg-{i:02d}{'-mtp' if mtp else ''}",
                        isl=isl,
                        osl=osl,
                        concurrency=c,
                        spec="mtp" if mtp else "none",
                        draft_tokens=3 if mtp else None,
                    )
                )
    out.append(Point(config="cfg-single", concurrency=8))
    return out


def year(parent: Path) -> tuple[Path, Path]:
    rng = random.Random(7)
    sweep = points()
    shape = Shape(noise=0.02)
    for day in range(RUNS):
        run = Run(day=day)
        write_run(parent / "history", run, (point_record(run, p, shape, rng) for p in sweep))
    run = Run(day=RUNS)
    write_run(parent, run, (point_record(run, p, shape, rng) for p in sweep), name="run")
    return parent / "history", parent / "run"


def timed(cmd: list[str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def row(what: str, seconds: float, target: float | None) -> str:
    verdict = "" if target is None else ("met" if seconds < target else "NOT met")
    shown = "" if target is None else f"< {target:g} s"
    return f"| {what} | {seconds:,.2f} s | {shown} | {verdict} |"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        history, current = year(Path(tmp))
        written = time.perf_counter() - start
        cli = [sys.executable, "-m", "generator", "--root", tmp, "results"]
        where = ["--history", str(history), "--current", str(current)]
        rows = [
            row(f"write the synthetic year ({RUNS} x {len(points())} records)", written, None),
            row(
                "results summarize, one run (431 records)",
                timed([*cli, "summarize", str(current)], 3),
                None,
            ),
            row(
                f"results compare, {RUNS} history runs",
                timed([*cli, "compare", *where, "--json"], 3),
                MAX_COMPARE_SECONDS,
            ),
            row(
                f"results report, {RUNS} history runs",
                timed([*cli, "report", *where, "--out", str(Path(tmp) / "site")], 3),
                MAX_REPORT_SECONDS,
            ),
            row(
                f"results thresholds, {RUNS} history runs (reads every file)",
                timed([*cli, "thresholds", "--history", str(history)], 3),
                None,
            ),
        ]
    print("| measurement (median wall time) | figure | target | |")
    print("|---|---:|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
