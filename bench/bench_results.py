"""The results commands at the scale of five years: `make bench` (not part of `make test`).

Writes (once; kept in .bench-cache/ and reused while its generator is unchanged) a
synthetic history of five years of nightly runs, 1,826 runs x 431 points = 787,006 records,
laid out as `results admit` lays it out, but for the record files: each run's manifest
(matrix, verdicts in the shape `results compare --json` writes, provenance) and its compact
file. No command opens the record files of a run that has its compact file
(tests/acceptance/test_results_admit.py shows the two read the same), and writing 787k of
them would take most of the bench's time, so they are left out.

The generator is deterministic: one run of valid records (tests/results_gen.py, fixed
seed) goes through the store's own typed read; DuckDB then derives every run from it
(start times a day apart, image digests that change every 30 runs, the SGLang version every
90, throughput, TTFT and TPOT within +-2% by a hash of run and point) and writes each run's
compact file; a few points a run are suspected or regressions in its verdicts.

Then times, as medians of fresh processes, each with its peak memory (maximum resident
set size of the process):
- `results compare --history --current` of a new run (target: under 5 s);
- `results report --history --out` (target: under 60 s and under 1 GiB);
- `results summarize` of the run (431 records, validated with jsonschema).
Prints a Markdown table of the figures and the targets.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator.results.runs import MANIFEST, RunDir  # noqa: E402
from generator.results.store import COMPACT_FILE, COMPACT_VERSION, CURRENT, Store  # noqa: E402
from tests.results_gen import Point, Run, Shape, point_record, write_run  # noqa: E402

RUNS = 5 * 365 + 1
BATCH = 40
MAX_COMPARE_SECONDS = 5.0
MAX_REPORT_SECONDS = 60.0
MAX_REPORT_BYTES = 1024**3
CACHE = ROOT / ".bench-cache"
SOURCES = (Path(__file__), ROOT / "tests/results_gen.py")


def points() -> list[Point]:
    """431 points: 43 configs x 2 pairs x 5 concurrencies (every fourth config MTP), and
    one single-point config."""
    out = [
        Point(
            config=f"cfg-{i:02d}{'-mtp' if mtp else ''}",
            isl=isl,
            osl=osl,
            concurrency=c,
            spec="mtp" if mtp else "none",
            draft_tokens=3 if mtp else None,
        )
        for i, mtp in ((i, i % 4 == 0) for i in range(43))
        for isl, osl in ((1024, 1024), (8192, 1024))
        for c in (4, 16, 32, 64, 128)
    ]
    out.append(Point(config="cfg-single", concurrency=8))
    return out


def day_run(day: int) -> Run:
    return Run(day=day, digest="sha256:" + hashlib.sha256(str(day // 30).encode()).hexdigest())


def shaped(records: list[dict[str, Any]], day: int) -> list[dict[str, Any]]:
    version = f"0.5.{day // 90}"
    for r in records:
        r["provenance"]["sglang_version"] = version
    return records


def verdicts(day: int, sweep: list[Point], rng: random.Random) -> dict[str, Any]:
    """What `results compare --json` writes for a run: every point and curve judged."""
    pts = []
    for p in sweep:
        roll = rng.random()
        verdict = "regression" if roll < 0.002 else "suspected" if roll < 0.007 else "ok"
        metrics = {
            m: {
                "metric": m,
                "verdict": verdict if m == "output_throughput_per_gpu" else "ok",
                "current": 100.0,
                "baseline": 100.0,
                "band": 5.0,
                "change": -0.12 if verdict != "ok" and m == "output_throughput_per_gpu" else 0.0,
                "runs": 7,
                "previous": 100.0,
            }
            for m in ("output_throughput_per_gpu", "median_ttft_ms", "median_tpot_ms")
        }
        pts.append(
            {
                "config": p.config,
                "pair": f"{p.isl}x{p.osl}",
                "isl": p.isl,
                "osl": p.osl,
                "concurrency": p.concurrency,
                "runner_label": "mi355-8gpu",
                "image_family": "rocm/sgl-dev",
                "verdict": verdict,
                "reason": None,
                "metrics": metrics,
            }
        )
    curves = [
        {"config": c, "pair": pair, "verdict": "ok", "interactivity": 50.0, "change": 0.0}
        for c, pair in sorted({(p.config, f"{p.isl}x{p.osl}") for p in sweep})
    ]
    bad = any(p["verdict"] == "regression" for p in pts)
    return {
        "schema": "sglang-ci/verdicts/1",
        "current": "run",
        "history_runs": min(day, 16),
        "exit_code": 1 if bad else 0,
        "outcome": "fail" if bad else "pass",
        "points": pts,
        "curves": curves,
        "gates": [],
        "missing_cases": [],
    }


def matrix(sweep: list[Point]) -> dict[str, Any]:
    jobs: dict[str, dict[str, Any]] = {}
    for p in sweep:
        job = jobs.setdefault(
            f"{p.config}-{p.isl}x{p.osl}",
            {
                "id": f"{p.config}-{p.isl}x{p.osl}",
                "config": p.config,
                "runner": "mi355-8gpu",
                "image": "rocm/sgl-dev:nightly",
                "points": [],
            },
        )
        job["points"].append(
            {"id": p.point_id, "isl": p.isl, "osl": p.osl, "concurrency": p.concurrency}
        )
    return {"include": list(jobs.values())}


def manifest(run: Run, day: int, sweep: list[Point], rng: random.Random) -> dict[str, Any]:
    return {
        "schema": "sglang-ci/manifest/1",
        "name": run.name,
        "admitted_at": f"{run.started_at:%Y-%m-%dT%H:%M:%SZ}",
        "started_at": f"{run.started_at:%Y-%m-%dT%H:%M:%SZ}",
        "run": {
            "workflow": "Benchmark",
            "number": day + 1,
            "id": run.run_id,
            "attempt": "1",
            "repository": "example/sglang-ci",
            "url": f"https://github.com/example/sglang-ci/actions/runs/{run.run_id}",
            "event": "schedule",
            "ref": "refs/heads/main",
            "sha": "0" * 40,
        },
        "provenance": {
            "images": [{"requested": run.image, "digest": run.image_digest()}],
            "runners": [],
            "catalog_commits": ["0" * 40],
        },
        "matrix": [matrix(sweep)],
        "verdicts": verdicts(day, sweep, rng),
        "jobs": None,
        "records": {"count": len(sweep), "files": []},
        "compact": COMPACT_FILE,
        "left_out": [],
    }


_NOISE = "(1 + ((hash(d.day, r.id) % 2001)::DOUBLE - 1000) / 50000)"
_RUNS_SQL = f"""
COPY (
  SELECT r.* EXCLUDE (role, run) REPLACE (
      regexp_replace(r.file, '^.*/([^/]+/[^/]+)$', '\\1') AS file,
      r.started_at + to_days(d.day::INTEGER) AS started_at,
      'sha256:' || sha256((d.day // 30)::VARCHAR) AS image_digest,
      '0.5.' || (d.day // 90)::VARCHAR AS sglang_version,
      (7000 + d.day)::VARCHAR AS gh_run_id,
      r.output_throughput_per_gpu * {_NOISE} AS output_throughput_per_gpu,
      r.output_throughput * {_NOISE} AS output_throughput,
      r.median_ttft_ms * {_NOISE} AS median_ttft_ms,
      r.median_tpot_ms * {_NOISE} AS median_tpot_ms,
      1000.0 / (r.median_tpot_ms * {_NOISE}) AS interactivity),
    d.day AS day
  FROM all_records r, range(?) d(day)
  ORDER BY day, kind, config, id
) TO ? (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (day))
"""


def five_years(history: Path) -> None:
    """The synthetic history under `history`."""
    rng = random.Random(7)
    sweep = points()
    template = day_run(0)
    records = shaped([point_record(template, p, Shape(noise=0.02), rng) for p in sweep], 0)
    root = write_run(history.parent / "template", template, records)
    store = Store()
    store.add(
        CURRENT,
        [RunDir(name=root.name, files=tuple(str(f) for f in sorted(root.rglob("*/*.json"))))],
    )
    parts = history.parent / "parts"
    store.con.execute(_RUNS_SQL, [RUNS, str(parts)])
    for day in range(RUNS):
        run = day_run(day)
        target = history / run.name
        target.mkdir(parents=True)
        (parts / f"day={day}" / "data_0.parquet").rename(target / COMPACT_FILE)
        (target / MANIFEST).write_text(json.dumps(manifest(run, day, sweep, rng)))
    shutil.rmtree(parts)


def cached_history() -> Path:
    key = hashlib.sha256(
        b"".join(p.read_bytes() for p in SOURCES) + COMPACT_VERSION.encode()
    ).hexdigest()[:12]
    where = CACHE / f"five-years-{key}"
    if not (where / "done").exists():
        shutil.rmtree(CACHE, ignore_errors=True)
        # Written by a child process: a process started from this one would otherwise
        # report this one's high-water mark as its own peak memory (Linux carries the
        # pre-exec address space's maximum resident set size over an exec).
        start = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--write", str(where / "history")], check=True)
        (where / "done").write_text(f"{time.perf_counter() - start:.0f}\n")
    return where


def timed(cmd: list[str], runs: int) -> tuple[float, int]:
    """Median wall time and the largest peak memory (bytes) of `runs` fresh processes."""
    samples, peaks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        samples.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss * 1024)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            msg = f"{' '.join(cmd)} failed"
            raise SystemExit(msg)
    return statistics.median(samples), max(peaks)


def row(what: str, figure: tuple[float, int], target: tuple[float, int] | None) -> str:
    seconds, peak = figure
    shown = (
        ""
        if target is None
        else f"< {target[0]:g} s" + (f", < {target[1] / 1024**3:g} GiB" if target[1] else "")
    )
    met = target is None or (seconds < target[0] and (not target[1] or peak < target[1]))
    verdict = "" if target is None else ("met" if met else "NOT met")
    return f"| {what} | {seconds:,.2f} s | {peak / 1024**2:,.0f} MiB | {shown} | {verdict} |"


def main() -> int:
    where = cached_history()
    history = where / "history"
    tmp = where / "work"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    run = day_run(RUNS)
    current = write_run(
        tmp, run, shaped([point_record(run, p) for p in points()], RUNS), name="run"
    )
    cli = [sys.executable, "-m", "generator", "--root", str(tmp), "results"]
    site = tmp / "site"
    rows = [
        row(
            f"results compare, {RUNS:,} history runs ({RUNS * len(points()):,} records)",
            timed(
                [*cli, "compare", "--history", str(history), "--current", str(current), "--json"], 3
            ),
            (MAX_COMPARE_SECONDS, 0),
        ),
        row(
            f"results report, {RUNS:,} history runs",
            timed([*cli, "report", "--history", str(history), "--out", str(site)], 3),
            (MAX_REPORT_SECONDS, MAX_REPORT_BYTES),
        ),
        row(
            "results summarize, one run (431 records)",
            timed([*cli, "summarize", str(current)], 3),
            None,
        ),
    ]
    print(f"History: {history} (written in {(where / 'done').read_text().strip()} s)")
    print("| measurement (median wall time) | figure | peak memory | target | |")
    print("|---|---:|---:|---|---|")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write"]:
        five_years(Path(sys.argv[2]))
        raise SystemExit(0)
    raise SystemExit(main())
