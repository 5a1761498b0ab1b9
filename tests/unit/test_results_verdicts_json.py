"""generator/results/verdicts_json.py: the verdicts JSON as the summary and dashboard read
it, in compare's earlier shape and in the output contract's."""

from __future__ import annotations

from typing import Any

import pytest

from generator.results.verdicts_json import read

EARLIER: dict[str, Any] = {
    "schema": "sglang-ci/verdicts/1",
    "current": "2026-11-05T02-00-00Z-7004",
    "exit_code": 1,
    "points": [
        {
            "config": "ds-fp8-tp8",
            "pair": "1024x1024",
            "isl": 1024,
            "osl": 1024,
            "concurrency": 16,
            "verdict": "regression",
            "reason": None,
            "metrics": {
                "output_throughput_per_gpu": {
                    "metric": "output_throughput_per_gpu",
                    "verdict": "ok",
                    "change": 0.01,
                },
                "median_ttft_ms": {
                    "metric": "median_ttft_ms",
                    "verdict": "regression",
                    "change": 0.3,
                },
            },
        },
        {
            "config": "ds-fp8-tp8",
            "pair": "1024x1024",
            "concurrency": 4,
            "verdict": "ok",
            "metrics": {},
        },
    ],
    "curves": [
        {
            "config": "ds-fp8-tp8",
            "pair": "1024x1024",
            "verdict": "suspected",
            "change": -0.06,
            "interactivity": 40.0,
        }
    ],
    "gates": [{"gate": "accuracy", "kind": "case", "id": "gsm8k", "message": "0.9 below 0.93"}],
}
CONTRACT: dict[str, Any] = {
    "outcome": "fail",
    "points": [
        {
            "config": "ds-fp8-tp8",
            "isl": 8192,
            "osl": 1024,
            "concurrency": 64,
            "verdict": "suspected",
            "metrics": [
                {"metric": "output_throughput_per_gpu", "verdict": "suspected", "change": -0.07}
            ],
        },
    ],
    "curves": [{"config": "ds-fp8-tp8", "isl": 8192, "osl": 1024, "verdict": "ok"}],
    "events": [
        {
            "id": "ev-1",
            "state": "confirmed",
            "config": "ds-fp8-tp8",
            "first_bad_run": "r2",
            "last_good_run": "r1",
            "points": [{"pair": "8192x1024", "isl": 8192, "osl": 1024, "concurrency": 64}],
            "curves": [{"pair": "8192x1024", "isl": 8192, "osl": 1024}],
            "metrics": ["output_throughput_per_gpu"],
            "changes": {
                "output_throughput_per_gpu": {"change": -0.101, "low": -0.118, "high": -0.084}
            },
            "differences": {"image_digest": ["sha256:aa", "sha256:bb"]},
        }
    ],
}


def test_the_earlier_shape_reads_with_an_event_made_up_per_config() -> None:
    v = read(EARLIER)
    assert (v.outcome, v.regressions) == ("fail", 1)
    regressed = v.points[0]
    assert (
        regressed.pair,
        [m.metric for m in regressed.metrics if m.verdict == regressed.verdict],
    ) == (
        "1024x1024",
        ["median_ttft_ms"],
    )
    assert (v.points[1].isl, v.points[1].osl) == (1024, 1024)
    assert [(c.pair, c.verdict, c.change) for c in v.curves] == [("1024x1024", "suspected", -0.06)]
    [event] = v.events
    assert (event.id, event.verdict, event.first_bad_run) == (
        "ds-fp8-tp8@2026-11-05T02-00-00Z-7004",
        "regression",
        "2026-11-05T02-00-00Z-7004",
    )
    assert event.points == ("1024x1024 c=16", "1024x1024 curve")
    assert event.metrics == ("median_ttft_ms",)
    assert v.gates == ("accuracy gate: case gsm8k: 0.9 below 0.93",)


def test_the_output_contract_reads_with_its_own_events() -> None:
    v = read(CONTRACT)
    assert v.outcome == "fail"
    [p] = v.points
    assert (p.pair, p.concurrency, p.verdict, p.metrics[0].change) == (
        "8192x1024",
        64,
        "suspected",
        -0.07,
    )
    [event] = v.events
    assert (event.id, event.verdict, event.last_good_run) == ("ev-1", "regression", "r1")
    assert event.points == ("8192x1024 c=64", "8192x1024 curve")
    assert event.changes == (
        ("output_throughput_per_gpu", "-10.1% [-11.8%, -8.4%]"),
        ("image_digest", "sha256:aa -> sha256:bb"),
    )


def test_verdicts_that_are_not_an_object_are_refused() -> None:
    with pytest.raises(ValueError, match="verdicts are a JSON object"):
        read(["not", "verdicts"])
