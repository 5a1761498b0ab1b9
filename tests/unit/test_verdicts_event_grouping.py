"""generator/verdicts/event_grouping.py: a server's findings grouped into events."""

from __future__ import annotations

import math

import pytest

from generator.results.history import PointKey, RunInfo, Sample, ServerSeries
from generator.verdicts.badness import Found
from generator.verdicts.event_grouping import events_of
from generator.verdicts.model import event_id
from generator.verdicts.replay import CLEARED, CONFIRMED, Finding
from tests.series_gen import KEY

THROUGHPUT = "output_throughput_per_gpu"
TTFT = "median_ttft_ms"
A = PointKey(isl=1024, osl=1024, concurrency=4)
B = PointKey(isl=1024, osl=1024, concurrency=8)


def sample(throughput: float) -> Sample:
    return Sample(values={THROUGHPUT: throughput, TTFT: 1.0})


SERIES = ServerSeries(
    key=KEY,
    runs=tuple(
        RunInfo(name=f"run-{i}", provenance=(("image_digest", f"sha256:{'ab'[i >= 2]}"),))
        for i in range(4)
    ),
    samples={
        A: tuple(sample(v) for v in (100.0, 100.0, 80.0, 80.0)),  # moved by the level's change
        B: tuple(sample(v) for v in (100.0, 100.0, 99.0, 99.0)),  # not: 1% of its 10%
    },
)
LEVEL = Found(
    metric=THROUGHPUT,
    point=None,
    finding=Finding(
        onset=2, reference=(0, 1), stretch=[2, 3], state=CONFIRMED, confirmed_at=3,
        confirmed_by="runs",
    ),
    worse=0.1,
    se=0.01,
    reference=-4.6,
)  # fmt: skip
LATER = Found(
    metric=TTFT, point=None, finding=Finding(onset=3, reference=(0, 1, 2), stretch=[3]),
    worse=0.05, se=0.01, reference=0.0,
)  # fmt: skip
OWN = Found(
    metric=THROUGHPUT, point=B,
    finding=Finding(onset=0, reference=(), stretch=[0], state=CLEARED, closed_at=1),
    worse=0.2, se=0.05, reference=-4.6,
)  # fmt: skip


def test_level_findings_a_run_apart_are_one_event_a_points_own_is_another() -> None:
    level, own = events_of(SERIES, [LEVEL, LATER, OWN], 3)
    assert (level.id, level.state, level.first_bad_run, level.last_good_run) == (
        event_id(KEY, "run-2"), "confirmed", "run-2", "run-1",
    )  # fmt: skip
    assert (level.confirmed_in, level.confirmed_by, level.new_confirmation, level.runs) == (
        "run-3", "runs", True, 2,
    )  # fmt: skip
    assert (level.metrics, level.points, level.curves) == (
        (THROUGHPUT, TTFT),
        (A,),
        ((1024, 1024),),
    )
    assert level.differences == {"image_digest": ("sha256:a", "sha256:b")}
    assert list(level.changes) == [THROUGHPUT, TTFT]  # the one that defines it first
    assert level.changes[THROUGHPUT].change == pytest.approx(math.exp(-0.1) - 1)
    assert (own.id, own.state, own.points, own.curves, own.last_good_run) == (
        event_id(KEY, "run-0", B), "cleared", (B,), (), None,
    )  # fmt: skip


def test_a_judged_run_before_the_confirmation_is_no_new_confirmation() -> None:
    [level] = events_of(SERIES, [LEVEL], 4)
    assert (level.new_confirmation, level.runs) == (False, 2)
