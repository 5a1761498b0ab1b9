"""generator/verdicts/compare.py: a run's points judged, what it misses, the A/B outcomes
the history keeps."""

from __future__ import annotations

import json

from generator.catalog.regression import Policy
from generator.results.load import open_store
from generator.results.store import Store
from generator.verdicts.compare import _trade_offs, compare, history_outcomes
from tests.results_gen import Point, Run, Shape, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.results.verdicts_json import MetricDoc


def test_a_first_run_is_new_and_a_cancelled_point_missing(tmp_path: Path) -> None:
    run = Run(day=0)
    cancelled = point_record(run, Point(concurrency=8), Shape(status="cancelled"))
    root = write_run(tmp_path, run, [point_record(run, Point()), cancelled])
    c = compare(open_store(current=[root]), Policy(), source="-", current=run.name, expected=None)
    assert [(p.identity["concurrency"], p.verdict, p.reason) for p in c.points] == [
        (4, "new", None),
        (8, "missing", "cancelled"),
    ]
    assert [(m["metric"], m["verdict"]) for m in c.points[0].metrics] == [
        ("output_throughput_per_gpu", "new"),
        ("median_ttft_ms", "new"),
        ("median_tpot_ms", "new"),
    ]
    assert (c.exit_code, c.causes) == (1, ["1 expected point(s) or case(s) reported no record"])
    assert c.counts() == {"points": {"new": 1, "missing": 1}, "curves": {"new": 1}, "events": {}}


def test_the_history_keeps_the_ab_outcomes_of_its_nights(tmp_path: Path) -> None:
    (tmp_path / "night" / "confirmation").mkdir(parents=True)
    results = [{"event": "ev-1", "result": "confirmed"}, {"event": "ev-2"}, "not an outcome"]
    (tmp_path / "night" / "confirmation" / "results.json").write_text(json.dumps(results))
    store = Store()
    store.dirs = {"night-1": str(tmp_path / "night"), "night-2": str(tmp_path / "none")}
    assert history_outcomes(store) == {"night-1": {"ev-1": "confirmed"}}


def verdict(metric: str, word: str) -> MetricDoc:
    return {
        "metric": metric, "verdict": word, "current": 1.0, "baseline": 1.0, "band": None,
        "change": None, "low": None, "high": None, "runs": 5, "previous": None, "note": None,
    }  # fmt: skip


def test_slower_at_a_point_whose_throughput_improved_is_a_trade_off() -> None:
    moved = [
        verdict("output_throughput_per_gpu", "improved"),
        verdict("median_ttft_ms", "regression"),
    ]
    assert [m["verdict"] for m in _trade_offs(moved)] == ["improved", "trade-off"]
    held = [verdict("output_throughput_per_gpu", "ok"), verdict("median_ttft_ms", "regression")]
    assert _trade_offs(held) == held
