"""What the dashboard reads of the admitted runs' manifests (generator/results/timeline.py)."""

from __future__ import annotations

import json

from generator.results.admit import MANIFEST_SCHEMA
from generator.results.store import Store
from generator.results.timeline import MANIFEST_BATCH_BYTES, manifests

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

RUNS = 120
POINTS = 800  # 130 KB a manifest


def _manifest(n: int) -> dict[str, object]:
    points = [
        {
            "config": "dsr1-fp8",
            "isl": 1024,
            "osl": 1024,
            "concurrency": c,
            "verdict": "regression" if c == n else "ok",
            "metrics": {"output_throughput_per_gpu": {"verdict": "ok", "change": 0.01}},
        }
        for c in range(1, POINTS + 1)
    ]
    verdicts = {"outcome": "fail", "exit_code": 1, "current": "run", "points": points}
    return {"schema": MANIFEST_SCHEMA, "run": {"number": n}, "verdicts": verdicts}


def test_many_manifests_are_read_on_one_thread_within_a_small_memory_limit(
    tmp_path: Path,
) -> None:
    # One query over all 120 manifests needs more than 512 MiB of DuckDB's memory on the
    # store's one thread; read in batches they fit in 256 MiB, and every run is read.
    paths, total = {}, 0
    for n in range(1, RUNS + 1):
        path = tmp_path / f"run-{n:03d}" / "manifest.json"
        path.parent.mkdir()
        total += path.write_text(json.dumps(_manifest(n)))
        paths[f"run-{n:03d}"] = str(path)
    assert total > 5 * MANIFEST_BATCH_BYTES  # several batches
    store = Store()
    store.con.execute("SET memory_limit = '256MB'")
    found = manifests(store, paths)
    assert sorted(found.info) == sorted(paths)
    assert found.info["run-007"] == {"number": 7}
    marked = found.marks["run-007"]
    assert marked.outcome == "fail"
    assert [(p.concurrency, p.verdict) for p in marked.points] == [(7, "regression")]
    assert all(len(found.marks[r].points) == 1 for r in paths)
