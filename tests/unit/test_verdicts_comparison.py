"""generator/verdicts/comparison.py: what fails a run, and the verdicts JSON."""

from __future__ import annotations

from dataclasses import replace

from generator.catalog.regression import Policy
from generator.results.history import PointKey
from generator.verdicts.comparison import Comparison, CurveOut, PointResult, event_dict
from generator.verdicts.model import Change, CurveVerdict, Event
from tests.series_gen import KEY

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.expected import PointIdentity

THROUGHPUT = "output_throughput_per_gpu"
EVENT = Event(
    id="ev-1", server=KEY, onset=2, first_bad_run="run-2", last_good_run="run-1",
    state="confirmed", confirmed_at=3, confirmed_in="run-3", confirmed_by="runs",
    new_confirmation=True, cause=None, runs=2,
    points=(PointKey(isl=1024, osl=1024, concurrency=4),), curves=((1024, 1024),),
    metrics=(THROUGHPUT, "median_ttft_ms"),
    changes={
        "median_ttft_ms": Change(change=0.2, low=0.1, high=0.3),
        THROUGHPUT: Change(change=-0.1, low=-0.12, high=-0.08),
    },
    differences={"image_digest": ("sha256:a", "sha256:b")}, how=("runs",),
)  # fmt: skip
# Confirmed, but smaller than throughput's min_change (5%): reported, never failed on.
SMALL = replace(EVENT, id="ev-2", changes={THROUGHPUT: Change(change=-0.001, low=-0.002, high=0.0)})
IDENTITY: PointIdentity = {
    "config": KEY.config, "pair": "1024x1024", "isl": 1024, "osl": 1024, "concurrency": 4,
    "fingerprint": "fp-a", "runner_label": "mi355", "image_family": "rocm/x",
}  # fmt: skip
POINT = PointResult(identity=IDENTITY, verdict="regression", reason=None, metrics=())
CURVE = CurveVerdict(pair=(1024, 1024), verdict="regression", change=-0.1)
RUN = Comparison(
    policy=Policy(), policy_source="defaults", current="run-3", history_runs=3, points=(POINT,),
    curves=(CurveOut(server=KEY, result=CURVE),), events=(EVENT, SMALL), gates=(),
    missing_cases=(), problems=(),
)  # fmt: skip


def test_a_confirmed_change_as_large_as_its_min_change_fails_the_run() -> None:
    assert ([e.id for e in RUN.confirmed], [e.id for e in RUN.failing]) == (
        ["ev-1", "ev-2"],
        ["ev-1"],
    )
    assert (RUN.exit_code, RUN.regressions) == (1, 1)
    assert RUN.causes == [
        "confirmed regression of ds-fp8-tp8: output_throughput_per_gpu -10.0% since run-2 (ev-1)"
    ]


def test_an_event_triaged_invalid_or_a_policy_that_only_reports_passes() -> None:
    assert replace(RUN, invalid=frozenset({"ev-1"})).exit_code == 0
    assert replace(RUN, policy=replace(Policy(), on_regression="warn")).causes == []


def test_an_event_lists_its_defining_metric_first() -> None:
    data = event_dict(EVENT)
    assert list(data["changes"]) == [THROUGHPUT, "median_ttft_ms"]
    assert (data["points"], data["curves"]) == (
        [{"isl": 1024, "osl": 1024, "concurrency": 4}], [{"isl": 1024, "osl": 1024}],
    )  # fmt: skip
    assert data["differences"] == {"image_digest": ["sha256:a", "sha256:b"]}


def test_the_verdicts_json() -> None:
    data = RUN.as_dict()
    assert (data["schema"], data["outcome"], data["confirmed"]) == (
        "sglang-ci/verdicts/2", "fail", ["ev-1", "ev-2"],
    )  # fmt: skip
    assert data["curves"] == [
        {
            "config": "ds-fp8-tp8", "pair": "1024x1024", "isl": 1024, "osl": 1024,
            "fingerprint": "fp-a", "runner_label": "mi355", "image_family": "rocm/x",
            "verdict": "regression", "interactivity": None, "change": -0.1, "compared": None,
            "note": None,
        }
    ]  # fmt: skip
    assert data["points"] == [{**IDENTITY, "verdict": "regression", "reason": None, "metrics": {}}]
