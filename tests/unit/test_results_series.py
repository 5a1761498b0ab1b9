"""generator/results/series.py: each server's series read from the store."""

from __future__ import annotations

from generator.results.history import PointKey, ServerKey
from generator.results.load import open_store
from generator.results.series import read_series
from tests.results_gen import Point, Run, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_server_keeps_its_newest_runs_and_the_current_one_last(tmp_path: Path) -> None:
    for day in range(3):
        run = Run(day=day)
        records = [point_record(run, Point()), point_record(run, Point(concurrency=8))]
        write_run(tmp_path / "history", run, records)
    now = Run(day=5)
    current = write_run(tmp_path / "current", now, [point_record(now, Point())])
    [series] = read_series(open_store(current=[current], history=tmp_path / "history"), 2)
    assert series.key == ServerKey(
        config="ds-fp8-tp8", fingerprint="fp-ds-fp8-tp8", runner_label="mi355-8gpu",
        image_family="rocm/sgl-dev",
    )  # fmt: skip
    assert [r.key for r in series.runs] == ["7001", "7002", "7005"]  # their GitHub run ids
    eight = PointKey(isl=1024, osl=1024, concurrency=8)
    assert [s is None for s in series.samples[eight]] == [False, False, True]
    assert [what for what, _ in series.runs[0].provenance] == [
        "image_digest", "sglang_version", "sglang_commit", "atom_version", "aiter_version",
        "rocm_version", "catalog_commit", "runner_name",
    ]  # fmt: skip
    assert series.runs[0].get("rocm_version") == "7.0.2"
