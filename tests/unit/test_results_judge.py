"""The verdicts of one server's run (generator/results/judge.py and events.py) on small
seeded series (tests/series_gen.py): a one-run outlier, a two-run step at one point and
config-wide, drift, a staircase, a config change, an image change."""

from __future__ import annotations

import pytest

from generator.catalog.regression import Policy
from generator.results.events import CONFIRMED, SUSPECTED, Event, event_id, events
from generator.results.judge import judge_server, rules
from generator.results.verdict import OK, REGRESSION
from generator.results.verdict import SUSPECTED as SUSPECTED_VERDICT
from tests.series_gen import KEY, POINTS, server, upto

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.history import ServerSeries

RULES = rules(Policy())
THROUGHPUT = "output_throughput_per_gpu"
CLEAN = 30  # clean runs before a change


def verdicts(series: ServerSeries, metric: str = THROUGHPUT) -> dict[int, str]:
    judged = judge_server(series, RULES)
    return {
        p.concurrency: next(m.verdict for m in results if m.metric == metric)
        for p, results in judged.points.items()
    }


def only_event(series: ServerSeries) -> Event:
    [found] = events(judge_server(series, RULES))
    return found


def step(runs: int, factor: float, start: int = CLEAN) -> list[float]:
    return [1.0 if r < start else factor for r in range(runs)]


def test_a_clean_run_is_ok_everywhere() -> None:
    series = server(CLEAN + 1)
    assert set(verdicts(series).values()) == {OK}
    assert events(judge_server(series, RULES)) == []


def test_a_one_run_outlier_at_a_point_is_suspected_then_gone() -> None:
    outlier = {(CLEAN, POINTS[2]): 0.85}
    series = server(CLEAN + 2, speed=outlier)
    assert verdicts(upto(series, CLEAN + 1))[16] == SUSPECTED_VERDICT
    assert set(verdicts(series).values()) == {OK}
    assert events(judge_server(series, RULES)) == []


def test_a_step_at_one_point_is_confirmed_on_its_second_run() -> None:
    drop = {(r, POINTS[2]): 0.9 for r in (CLEAN, CLEAN + 1)}
    series = server(CLEAN + 2, speed=drop)
    first = upto(series, CLEAN + 1)
    assert verdicts(first) == {4: OK, 8: OK, 16: SUSPECTED_VERDICT, 32: OK, 64: OK}
    assert only_event(first).state == SUSPECTED
    assert verdicts(series) == {4: OK, 8: OK, 16: REGRESSION, 32: OK, 64: OK}
    found = only_event(series)
    assert (found.state, found.new_confirmation) == (CONFIRMED, True)
    assert (found.first_bad_run, found.last_good_run) == ("run-030", "run-029")
    assert [p.concurrency for p in found.points] == [16]
    assert found.changes[THROUGHPUT].change == pytest.approx(-0.10, abs=0.015)
    assert found.changes[THROUGHPUT].low < -0.10 < found.changes[THROUGHPUT].high


def test_a_config_wide_step_is_one_event_over_its_points_curve_and_metrics() -> None:
    series = server(CLEAN + 2, shared=step(CLEAN + 2, 0.9))
    first = upto(series, CLEAN + 1)
    assert set(verdicts(first).values()) == {SUSPECTED_VERDICT}
    assert only_event(first).state == SUSPECTED
    assert set(verdicts(series).values()) == {REGRESSION}
    found = only_event(series)
    assert found.state == CONFIRMED
    assert found.first_bad_run == "run-030"
    assert found.points == POINTS
    assert found.curves == ((1024, 1024),)
    assert set(found.metrics) == {THROUGHPUT, "median_tpot_ms", "median_ttft_ms"}
    assert found.id == event_id(KEY, "run-030")
    assert found.differences["image_digest"] == ("sha256:0029", "sha256:0030")


def test_the_run_after_the_confirmation_reports_the_same_event_without_failing() -> None:
    series = server(CLEAN + 3, shared=step(CLEAN + 3, 0.9))
    found = only_event(series)
    assert (found.id, found.state, found.new_confirmation) == (
        event_id(KEY, "run-030"),
        CONFIRMED,
        False,
    )
    assert found.runs == 3


def test_a_point_step_during_a_suspected_server_dip_is_an_event_of_its_own() -> None:
    # A 1.5% dip of the whole server from run 30 (suspected, never confirmed), then a 20%
    # step at c=16 from run 32: two changes, two first bad runs.
    dip = [1.0 if r < CLEAN else 0.985 for r in range(CLEAN + 4)]
    drop = {(r, POINTS[2]): 0.8 for r in (CLEAN + 2, CLEAN + 3)}
    judged = judge_server(server(CLEAN + 4, shared=dip, speed=drop), RULES)
    found = events(judged)
    assert [(e.first_bad_run, e.state, [p.concurrency for p in e.points]) for e in found] == [
        ("run-030", SUSPECTED, [4, 8, 16, 32, 64]),
        ("run-032", CONFIRMED, [16]),
    ]
    # Once an earlier night confirmed the dip (its next run or its A/B), what worsens on
    # the server while it lasts is part of it.
    [joined] = events(judged, confirmed={"run-030"})
    assert (joined.first_bad_run, joined.state) == ("run-030", CONFIRMED)
    assert [p.concurrency for p in joined.points] == [4, 8, 16, 32, 64]


def test_drift_is_flagged_before_it_reaches_five_percent() -> None:
    # -0.2% a run from run 40: flagged while the drift is under 5% (25 runs).
    runs = 40 + 25
    shared = [1.0 if r < 40 else 1 - 0.002 * (r - 39) for r in range(runs)]
    series = server(runs, shared=shared, noise=0.01)
    flagged = next(n for n in range(41, runs + 1) if events(judge_server(upto(series, n), RULES)))
    assert 1 - shared[flagged - 1] < 0.05


def test_a_staircase_of_two_small_steps_is_confirmed() -> None:
    shared = [1.0] * CLEAN + [0.97] * 5 + [0.94] * 4
    series = server(len(shared), shared=shared, noise=0.01)
    found = only_event(series)
    assert found.state == CONFIRMED
    assert found.changes[THROUGHPUT].change == pytest.approx(-0.05, abs=0.025)


def test_a_new_fingerprint_is_compared_with_the_previous_one_and_changes_with_it() -> None:
    # The config changed at run 30 (fingerprint fp-b) and runs 10% slower.
    new = {r: "fp-a" if r < CLEAN else "fp-b" for r in range(CLEAN + 2)}
    key = KEY.__class__(**{**KEY.as_dict(), "fingerprint": "fp-b"})
    series = server(CLEAN + 2, shared=step(CLEAN + 2, 0.9), fingerprints=new, key=key)
    assert series.boundary == CLEAN
    first = judge_server(upto(series, CLEAN + 1), RULES)
    [metric] = [m for m in first.points[POINTS[0]] if m.metric == THROUGHPUT]
    assert metric.verdict == SUSPECTED_VERDICT
    assert metric.note == "changed with the config: compared with the previous fingerprint's level"
    found = only_event(series)
    assert (found.state, found.cause, found.first_bad_run) == (CONFIRMED, "config", "run-030")
    assert found.differences["fingerprint"] == ("fp-a", "fp-b")


def test_an_image_change_never_starts_a_new_series() -> None:
    digests = dict.fromkeys(range(CLEAN, CLEAN + 2), "sha256:new")
    series = server(CLEAN + 2, digests=digests)
    assert series.boundary == 0
    assert set(verdicts(series).values()) == {OK}
    slower = server(CLEAN + 2, shared=step(CLEAN + 2, 0.9), digests=digests)
    found = only_event(slower)
    assert found.differences["image_digest"] == ("sha256:0029", "sha256:new")


def test_a_point_without_history_is_new_and_a_short_history_insufficient() -> None:
    assert set(verdicts(server(1)).values()) == {"new"}
    assert set(verdicts(server(3)).values()) == {"insufficient-history"}
