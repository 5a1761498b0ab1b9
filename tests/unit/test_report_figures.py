"""The dashboard's charts as plotly figure dicts (generator/report/figures.py): curves of
runs with their marks, trends with their changes and first bad runs, the heatmap, the
accuracy chart."""

from __future__ import annotations

from generator.report.figures import (
    BAD,
    EARLIER,
    LATEST,
    MARK_STYLE,
    ChartMark,
    CurveRun,
    Figure,
    FirstBad,
    accuracy_figure,
    curve_figure,
    curves_figure,
    heatmap_figure,
    trend_figure,
)


def names(figure: Figure) -> list[str]:
    return [trace["name"] for trace in figure["data"]]


def test_a_curve_is_drawn_in_interactivity_order_each_point_labelled() -> None:
    run = CurveRun(label="latest", points=[(30.0, 900.0, 64), (80.0, 200.0, 4), (50.0, 500.0, 16)])
    figure = curves_figure("t", [(run, LATEST)], [], height=320)
    [trace] = figure["data"]
    assert (trace["x"], trace["y"], trace["text"]) == (
        [30.0, 50.0, 80.0], [900.0, 500.0, 200.0], ["c=64", "c=16", "c=4"],
    )  # fmt: skip
    assert (trace["name"], trace["line"], trace["mode"]) == ("latest", LATEST, "lines+markers+text")
    layout = figure["layout"]
    assert (layout["height"], layout["title"]["text"]) == (320, "t")
    assert layout["xaxis"]["title"]["text"] == "interactivity (tok/s/user)"
    assert layout["yaxis"] == {"title": {"text": "output tok/s/GPU"}, "rangemode": "tozero"}


def test_a_run_without_points_draws_nothing() -> None:
    empty = CurveRun(label="before", points=())
    one = CurveRun(label="after", points=[(1.0, 2.0, 4)])
    assert names(curves_figure("t", [(empty, EARLIER), (one, BAD)], [])) == ["after"]


def test_marks_are_one_trace_per_verdict_regressions_first() -> None:
    marks = [
        ChartMark(x=1.0, y=2.0, verdict="suspected", text="s1"),
        ChartMark(x=3.0, y=4.0, verdict="regression", text="r1"),
        ChartMark(x=5.0, y=6.0, verdict="suspected", text="s2"),
        ChartMark(x=7.0, y=8.0, verdict="ok", text="not drawn"),
    ]
    figure = curves_figure("t", [], marks)
    regression, suspected = figure["data"]
    assert (regression["name"], regression["x"], regression["text"]) == (
        "regression",
        [3.0],
        ["r1"],
    )
    assert (suspected["x"], suspected["y"], suspected["text"]) == (
        [1.0, 5.0],
        [2.0, 6.0],
        ["s1", "s2"],
    )
    assert suspected["marker"] == MARK_STYLE["suspected"]
    assert {regression["meta"], suspected["meta"]} == {"mark"}


def test_the_latest_curve_is_drawn_over_the_earlier_one() -> None:
    latest = CurveRun(label="latest", points=[(1.0, 2.0, 4)])
    before = CurveRun(label="last good", points=[(1.5, 2.5, 4)])
    both = curve_figure("t", latest, before, [])
    assert names(both) == ["last good", "latest"]
    assert [trace["line"] for trace in both["data"]] == [EARLIER, LATEST]
    assert both["layout"]["height"] == 380
    assert names(curve_figure("t", latest, None, [])) == ["latest"]


def test_a_trend_has_a_trace_per_series_and_its_changes_above_the_highest_value() -> None:
    series = {"c=4": (["t1", "t2"], [100.0, 90.0]), "c=8": (["t1", "t2"], [95.0, 120.0])}
    figure = trend_figure(
        "tput", "% of baseline", series, [("t2", "SGLang 0.5.6 -> 0.5.7")], [],
        quiet=[("t1", "image a -> b"), ("t2", "image b -> c")],
        hover={"c=8": ["x", "y"]},
    )  # fmt: skip
    c4, c8, changed, quiet = figure["data"]
    assert "text" not in c4
    assert (c8["text"], c8["hovertemplate"]) == (
        ["x", "y"],
        "%{text}<extra>%{fullData.name}</extra>",
    )
    assert (changed["name"], changed["x"], changed["text"]) == (
        "image or version changed", ["t2"], ["SGLang 0.5.6 -> 0.5.7"],
    )  # fmt: skip
    assert changed["y"] == [120.0 * 1.08]
    assert (changed["visible"], changed["meta"]) == (True, "change")
    assert (quiet["name"], quiet["visible"], quiet["y"]) == (
        "image digest only (2)", "legendonly", [120.0 * 1.08] * 2,
    )  # fmt: skip
    layout = figure["layout"]
    assert layout["yaxis"] == {"title": {"text": "% of baseline"}, "rangemode": "tozero"}
    assert "shapes" not in layout
    assert "annotations" not in layout


def test_an_empty_trend_puts_its_changes_at_1_08() -> None:
    figure = trend_figure("t", "y", {}, [("t1", "x")], [])
    assert figure["data"][0]["y"] == [1.08]


def test_a_reference_is_a_dotted_line_and_each_first_bad_run_a_labelled_one() -> None:
    bad = [
        FirstBad(t="t2", label="first bad: r2", verdict="regression"),
        FirstBad(t="t3", label="first bad: r3", verdict="cleared"),
    ]
    layout = trend_figure("t", "% of baseline", {}, [], [], first_bad=bad, reference=100.0)[
        "layout"
    ]
    assert layout["yaxis"] == {"title": {"text": "% of baseline"}}  # not from zero
    line, first, second = layout["shapes"]
    assert (line["y0"], line["y1"], line["xref"]) == (100.0, 100.0, "paper")
    assert (first["x0"], first["x1"], first["line"]["color"]) == ("t2", "t2", "#d62728")
    assert second["line"]["color"] == MARK_STYLE["suspected"]["color"]  # any other verdict
    one, two = layout["annotations"]
    assert (one["x"], one["text"], one["y"]) == ("t2", "first bad: r2", 1)
    assert (two["text"], two["y"]) == ("first bad: r3", 1 - 0.09)


def test_the_heatmap_grows_with_its_rows() -> None:
    text = [["ok", "-"], ["regression", "suspected"]]
    figure = heatmap_figure(
        "h", ["r1", "r2"], ["a 1024x1024", "b 1024x1024"], [[0, None], [2, 1]], text
    )
    [cells] = figure["data"]
    assert (cells["x"], cells["y"], cells["z"]) == (
        ["r1", "r2"], ["a 1024x1024", "b 1024x1024"], [[0, None], [2, 1]],
    )  # fmt: skip
    assert (cells["zmin"], cells["zmax"]) == (0, 2)
    assert figure["layout"]["height"] == 160 + 26 * 2
    assert figure["layout"]["yaxis"]["autorange"] == "reversed"


def test_the_accuracy_chart_is_the_score_and_its_threshold_dashed() -> None:
    figure = accuracy_figure("gsm8k", ["t1", "t2"], [0.95, 0.94], [0.93, 0.93])
    score, threshold = figure["data"]
    assert (score["name"], score["y"]) == ("score", [0.95, 0.94])
    assert (threshold["name"], threshold["y"], threshold["line"]) == (
        "threshold", [0.93, 0.93], {"dash": "dash"},
    )  # fmt: skip
    assert figure["layout"]["yaxis"] == {"title": {"text": "score"}}
    assert figure["layout"]["title"]["text"] == "gsm8k"
