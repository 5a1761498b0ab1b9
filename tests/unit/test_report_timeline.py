"""What the dashboard reads of the admitted runs' manifests (generator/report/timeline.py)."""

from __future__ import annotations

import json

from generator.report.timeline import MANIFEST_BATCH_BYTES, config_runs, load_points, manifests
from generator.results.load import open_store
from generator.results.runs import MANIFEST_SCHEMA
from generator.results.store import Store
from tests import results_gen as gen

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


def test_a_change_of_the_image_digest_alone_is_kept_apart_from_a_version_change(
    tmp_path: Path,
) -> None:
    # Four nights: a rebuild of the same versions (digest only), then a new SGLang.
    points = gen.sweep(concurrencies=(4,))
    made = [("aa", "0.5.6"), ("bb", "0.5.6"), ("bb", "0.5.6"), ("cc", "0.5.7")]
    for day, (digest, version) in enumerate(made):
        run = gen.Run(day=day, digest="sha256:" + digest * 32)
        records = [gen.point_record(run, p) for p in points]
        for r in records:
            r["provenance"]["image"]["digest"] = "sha256:" + digest * 32
            r["provenance"]["sglang_version"] = version
        gen.write_run(tmp_path / "history", run, records)
    store = open_store(history=tmp_path / "history")
    load_points(store)
    found = config_runs(store, points[0].config)
    assert [(t[:10], what) for t, what in found.changes] == [
        ("2026-11-04", "image sha256:bbbbbbbbbbbb -> sha256:cccccccccccc; SGLang 0.5.6 -> 0.5.7")
    ]
    assert [(t[:10], what) for t, what in found.quiet] == [
        ("2026-11-02", "image sha256:aaaaaaaaaaaa -> sha256:bbbbbbbbbbbb")
    ]
    assert found.before_change == gen.Run(day=2).name
