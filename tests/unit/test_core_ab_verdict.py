"""The A/B verdict (generator/core/ab_verdict.py): pure functions, no processes."""

from __future__ import annotations

import math
import statistics
from typing import cast

import pytest

from generator.core import ab_noise, ab_verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.record_types import PointRecord

THROUGHPUT = ab_verdict.Rule(higher_is_better=True, min_change=0.05)


def pairs(ratios: list[float], base: float = 100.0) -> dict[tuple[str, int], tuple[float, float]]:
    """One point, repeat r measuring base on A and base x ratios[r - 1] on B."""
    return {("p", r): (base, base * x) for r, x in enumerate(ratios, 1)}


def test_an_eight_percent_drop_is_confirmed_one_sided_on_the_noise_model() -> None:
    j = ab_verdict.judge(
        "t", pairs([0.925, 0.91, 0.92]), higher_is_better=True, min_change=0.05, level=0.95
    )
    # Restart, one point: se^2 = (launch^2 (2K - 1) / K + point^2) / K, the repeats'
    # spread being smaller.
    se = math.sqrt((0.014**2 * 5 / 3 + 0.028**2) / 3)
    mean = sum(math.log(x) for x in (0.925, 0.91, 0.92)) / 3
    assert j.verdict == ab_verdict.CONFIRMED
    assert j.se == pytest.approx(se, rel=1e-9)
    assert j.z == pytest.approx(-mean / se, rel=1e-9)
    assert round(j.z or 0, 2) == 4.43
    half = 1.6448536 * se  # the one-sided normal quantile of 95%
    assert j.low == pytest.approx(math.exp(mean - half))
    assert j.high == pytest.approx(math.exp(mean + half))
    assert (j.repeats, j.pairs, j.threshold) == (3, 3, 0.95)


def test_noise_alone_is_cleared_and_a_small_real_change_is_confirmed_not_failed() -> None:
    clean = ab_verdict.judge(
        "t", pairs([1.01, 0.99, 1.005]), higher_is_better=True, min_change=0.05, level=0.95
    )
    assert clean.verdict == ab_verdict.CLEARED
    # -3% over eight repeats: a change beyond the noise (confirmed), smaller than the 5%
    # that fails a run (the verdicts report it, compare does not fail on it).
    small = ab_verdict.judge(
        "t", pairs([0.97] * 8), higher_is_better=True, min_change=0.05, level=0.95
    )
    assert small.verdict == ab_verdict.CONFIRMED
    assert round(small.z or 0, 2) == 2.54


def test_a_change_the_noise_cannot_tell_from_none_is_inconclusive() -> None:
    j = ab_verdict.judge(
        "t", pairs([0.98, 0.975, 0.97]), higher_is_better=True, min_change=0.05, level=0.95
    )
    assert j.verdict == ab_verdict.INCONCLUSIVE
    assert 0 < (j.z or 0) < 1.645


def test_a_latency_is_worse_when_it_grows() -> None:
    slower = ab_verdict.judge(
        "ttft", pairs([1.2, 1.22, 1.21]), higher_is_better=False, min_change=0.1, level=0.95
    )
    faster = ab_verdict.judge(
        "ttft", pairs([0.8, 0.82, 0.81]), higher_is_better=False, min_change=0.1, level=0.95
    )
    assert (slower.verdict, faster.verdict) == (ab_verdict.CONFIRMED, ab_verdict.CLEARED)
    assert slower.threshold == 1.1


def test_repeats_that_spread_more_than_the_noise_model_are_judged_on_their_spread() -> None:
    data = pairs([0.80, 0.95, 1.0])
    j = ab_verdict.judge("t", data, higher_is_better=True, min_change=0.05, level=0.95)
    logs = [math.log(x) for x in (0.80, 0.95, 1.0)]
    assert j.se == pytest.approx(statistics.stdev(logs) / math.sqrt(3), rel=1e-9)
    assert j.verdict == ab_verdict.INCONCLUSIVE


def test_the_measured_noise_moves_the_threshold() -> None:
    # -5% over three repeats: confirmed with the default noise, inconclusive on a runner
    # whose A/A measured launches four times as far apart.
    data = pairs([0.95, 0.95, 0.95])
    loud = ab_noise.Noise(launch=0.056, point=0.028, source="A/A")
    default = ab_verdict.judge("t", data, higher_is_better=True, min_change=0.05, level=0.95)
    measured = ab_verdict.judge(
        "t", data, higher_is_better=True, min_change=0.05, level=0.95, noise=loud
    )
    assert (default.verdict, measured.verdict) == (ab_verdict.CONFIRMED, ab_verdict.INCONCLUSIVE)


def test_one_complete_repeat_is_not_enough() -> None:
    j = ab_verdict.judge("t", pairs([0.9]), higher_is_better=True, min_change=0.05, level=0.95)
    assert j.verdict == ab_verdict.INCONCLUSIVE
    assert j.reason == "1 repeat(s) with a valid A and B value; 2 are needed"
    assert j.low is None


def test_the_same_measurements_give_the_same_interval() -> None:
    data = pairs([0.93, 0.95, 0.91, 0.96, 0.94])
    first = ab_verdict.judge("t", data, higher_is_better=True, min_change=0.05, level=0.9)
    again = ab_verdict.judge("t", data, higher_is_better=True, min_change=0.05, level=0.9)
    assert first == again
    assert first.low is not None
    assert first.high is not None
    assert math.isclose(
        first.ratio or 0, math.exp(sum(math.log(x) for x in (0.93, 0.95, 0.91, 0.96, 0.94)) / 5)
    )


def test_a_step_pairs_each_a_with_its_b_and_skips_invalid_turns() -> None:
    def m(side: str, repeat: int, value: float | None) -> ab_verdict.Measurement:
        metrics = None if value is None else {"t": value}
        return ab_verdict.Measurement(side=side, repeat=repeat, point="p", metrics=metrics)

    measured = [
        m("A", 1, 100),
        m("B", 1, 80),
        m("B", 2, 81),
        m("A", 2, 100),
        m("A", 3, 100),
        m("B", 3, None),
        m("B", 4, 80),
        m("A", 4, 100),
    ]
    verdict, [j] = ab_verdict.judge_step(measured, {"t": THROUGHPUT}, 0.95)
    assert (verdict, j.repeats, j.pairs) == (ab_verdict.CONFIRMED, 3, 3)


def test_an_event_is_confirmed_by_one_metric_and_cleared_only_by_all() -> None:
    def j(verdict: str) -> ab_verdict.Judgement:
        return ab_verdict.Judgement(
            metric="m",
            verdict=verdict,
            ratio=1,
            low=1,
            high=1,
            level=0.95,
            repeats=3,
            pairs=3,
            threshold=0.95,
        )

    assert (
        ab_verdict.overall([j(ab_verdict.CLEARED), j(ab_verdict.CONFIRMED)]) == ab_verdict.CONFIRMED
    )
    assert (
        ab_verdict.overall([j(ab_verdict.CLEARED), j(ab_verdict.INCONCLUSIVE)])
        == ab_verdict.INCONCLUSIVE
    )
    assert ab_verdict.overall([j(ab_verdict.CLEARED), j(ab_verdict.CLEARED)]) == ab_verdict.CLEARED


def two_points(ratios: dict[str, list[float]]) -> list[ab_verdict.Measurement]:
    """Each point's repeat r: 100 on A, 100 x ratios[point][r - 1] on B."""
    return [
        ab_verdict.Measurement(
            side=side, repeat=r, point=p, metrics={"t": 100.0 * (x if side == "B" else 1)}
        )
        for p, xs in ratios.items()
        for r, x in enumerate(xs, 1)
        for side in ("A", "B")
    ]


def test_one_slower_point_is_not_averaged_away_by_one_that_did_not_change() -> None:
    # 7% slower at p1, 7% faster at p2: the mean over both (1.0) alone would clear a
    # regression that p1 shows beyond the 5% minimum change. The job is inconclusive: the
    # event stays suspected, for the next run to decide.
    measured = two_points({"p1": [0.93, 0.93, 0.93], "p2": [1.07, 1.07, 1.07]})
    verdict, judged = ab_verdict.judge_step(measured, {"t": THROUGHPUT}, 0.95)
    assert verdict == ab_verdict.INCONCLUSIVE
    assert [(j.point, j.verdict) for j in judged] == [
        (None, ab_verdict.CLEARED),
        ("p1", ab_verdict.CONFIRMED),
        ("p2", ab_verdict.CLEARED),
    ]
    assert [j.pairs for j in judged] == [6, 3, 3]


def test_a_point_that_cannot_tell_does_not_keep_a_job_from_being_cleared() -> None:
    # The mean over both points is 1.0 (cleared); p1 alone, 2.5% slower, cannot be told
    # from no change nor from the 5% minimum.
    measured = two_points({"p1": [0.98, 0.975, 0.97], "p2": [1.02, 1.025, 1.03]})
    verdict, judged = ab_verdict.judge_step(measured, {"t": THROUGHPUT}, 0.95)
    assert [(j.point, j.verdict) for j in judged] == [
        (None, ab_verdict.CLEARED),
        ("p1", ab_verdict.INCONCLUSIVE),
        ("p2", ab_verdict.CLEARED),
    ]
    assert verdict == ab_verdict.CLEARED


def test_one_point_alone_never_confirms_a_job() -> None:
    # p1's three repeats lie beyond 5%, but the mean over both points is not worse.
    measured = two_points({"p1": [0.93, 0.94, 0.93], "p2": [1.06, 1.07, 1.06]})
    verdict, judged = ab_verdict.judge_step(measured, {"t": THROUGHPUT}, 0.95)
    assert [(j.point, j.verdict) for j in judged][1] == ("p1", ab_verdict.CONFIRMED)
    assert judged[0].verdict != ab_verdict.CONFIRMED
    assert verdict == ab_verdict.INCONCLUSIVE


def test_a_job_of_one_point_is_judged_once() -> None:
    verdict, judged = ab_verdict.judge_step(two_points({"p": [0.9, 0.9]}), {"t": THROUGHPUT}, 0.95)
    assert (verdict, [(j.point, j.pairs) for j in judged]) == (ab_verdict.CONFIRMED, [(None, 2)])


def test_a_valid_records_measurement_holds_its_metrics_that_have_a_value() -> None:
    metrics = {"output_throughput": 9.5, "completed": 8, "acceptance_rate": None}
    record = cast("PointRecord", {"validity": {"valid": True}, "metrics": metrics})
    got = ab_verdict.from_record("B", 2, "p", record)
    assert got == ab_verdict.Measurement(
        side="B", repeat=2, point="p", metrics={"output_throughput": 9.5, "completed": 8}
    )
    invalid = cast("PointRecord", {**record, "validity": {"valid": False}})
    assert ab_verdict.from_record("B", 2, "p", invalid).metrics is None
    assert ab_verdict.from_record("B", 2, "p", None).metrics is None
