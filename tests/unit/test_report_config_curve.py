"""The config page's curve of a pair (generator/report/config_curve.py): the latest run's
points beside an earlier run's, the latest run's marked points on it with the metrics that
moved, the curve's own verdict in the title."""

from __future__ import annotations

from generator.report.config_curve import curve
from generator.report.figures import EARLIER, LATEST
from generator.report.timeline import Judged, Series
from generator.results.shown_verdicts import MetricVerdict, PointVerdict, ShownCurveVerdict

RUNS = ["r1", "r2", "r3"]
TITLES = {"r1": "night 1", "r3": "night 3"}


def series(concurrency: int, xs: list[float | None], ys: list[float | None]) -> Series:
    return Series(isl=1024, osl=1024, concurrency=concurrency, mtp=False, runs=RUNS,
                  roles=["history", "history", "current"], t=RUNS,
                  values={"x": xs, "y": ys})  # fmt: skip


SERIES = [
    series(4, [80.0, 81.0, 79.0], [200.0, 210.0, 190.0]),
    series(16, [50.0, None, 48.0], [500.0, 505.0, 450.0]),  # r2 not measured at c=16
]


def point(c: int, verdict: str, *metrics: MetricVerdict, config: str = "ds") -> PointVerdict:
    return PointVerdict(config=config, isl=1024, osl=1024, concurrency=c, verdict=verdict,
                        reason=None, metrics=metrics)  # fmt: skip


def judged(points: tuple[PointVerdict, ...], curves: tuple[ShownCurveVerdict, ...] = ()) -> Judged:
    return Judged(run="r3", outcome="fail", points=points, curves=curves, events=())


def test_the_latest_curve_beside_the_earlier_one_named_with_titles() -> None:
    figure = curve("ds", "1024x1024", SERIES, "r3", ("r1", "last good"), None, TITLES)
    before, latest = figure["data"]
    assert (before["name"], before["line"], before["x"], before["y"]) == (
        "last good (night 1)", EARLIER, [50.0, 80.0], [500.0, 200.0],
    )  # fmt: skip
    assert (latest["name"], latest["line"], latest["text"]) == (
        "latest (night 3)", LATEST, ["c=16", "c=4"],
    )  # fmt: skip
    assert figure["layout"]["title"]["text"] == "1024x1024: throughput per GPU vs interactivity"


def test_a_run_without_a_point_is_not_drawn_nor_one_its_missing_points() -> None:
    figure = curve("ds", "1024x1024", SERIES, "r3", ("r2", "previous run"), None, {})
    before, _ = figure["data"]
    assert (before["name"], before["x"]) == ("previous run (r2)", [81.0])  # c=16 unmeasured
    assert len(curve("ds", "1024x1024", SERIES, "r3", ("r9", "x"), None, {})["data"]) == 1
    assert len(curve("ds", "1024x1024", SERIES, "r3", (None, "x"), None, {})["data"]) == 1
    empty = curve("ds", "1024x1024", SERIES, "r9", (None, "x"), None, {})
    assert empty["data"] == []  # a latest run without points: an empty chart


def test_each_marked_point_of_the_pair_sits_on_the_latest_curve_with_what_moved() -> None:
    tput = MetricVerdict(metric="output_throughput_per_gpu", verdict="regression", change=-0.08)
    ttft = MetricVerdict(metric="median_ttft_ms", verdict="ok", change=0.01)
    odd = MetricVerdict(metric="p99_itl_ms", verdict="ok", change=None)
    mine = judged((
        point(4, "regression", tput, ttft),
        point(16, "suspected", ttft, odd),  # none moved: every metric shown
        point(8, "regression", tput),  # not on the chart
        point(4, "regression", tput, config="other"),
    ))  # fmt: skip
    figure = curve("ds", "1024x1024", SERIES, "r3", ("r1", "last good"), mine, TITLES)
    _, _, regression, suspected = figure["data"]
    assert (regression["x"], regression["y"], regression["text"]) == (
        [79.0], [190.0], ["regression at c=4: tok/s/GPU -8.0%"],
    )  # fmt: skip
    assert (suspected["x"], suspected["text"]) == (
        [48.0], ["suspected at c=16: TTFT +1.0%, p99_itl_ms"],
    )  # fmt: skip


def test_the_curves_verdict_is_in_the_title() -> None:
    bent = ShownCurveVerdict(config="ds", isl=1024, osl=1024, verdict="suspected",
                             interactivity=50.0, change=-0.061)  # fmt: skip
    other = ShownCurveVerdict(config="ds", isl=8192, osl=1024, verdict="regression",
                              interactivity=None, change=-0.2)  # fmt: skip
    figure = curve("ds", "1024x1024", SERIES, "r3", (None, ""), judged((), (other, bent)), {})
    assert figure["layout"]["title"]["text"] == (
        "1024x1024: throughput per GPU vs interactivity (curve suspected -6.1%)"
    )
