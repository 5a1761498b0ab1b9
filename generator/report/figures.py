"""The dashboard's charts as plotly figure dicts (plain data; site.py renders them).

- curve: output throughput per GPU against interactivity of the latest run beside the
  last run before the most recent image change, each point labelled with its concurrency,
  the latest run's marked points on it;
- trend: a metric of every point of a config and pair over runs, one trace per
  concurrency (normalized: each point as % of its baseline, so that a step shows at every
  concurrency), markers where a version changed (the change in the hover), the changes of
  the image digest alone collapsed into one hidden trace, each event's first bad run as a
  labelled vertical line with what changed, and the points the verdicts marked
  (regression, suspected) on the metric that moved;
- accuracy: a case's score over runs with its threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NotRequired, TypedDict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


class Font(TypedDict, total=False):
    size: int
    color: str


class Title(TypedDict):
    text: str
    font: NotRequired[Font]


class Line(TypedDict, total=False):
    """A trace's or a shape's line."""

    color: str
    dash: str
    width: int


class Marker(TypedDict, total=False):
    symbol: str
    size: int
    color: str


class Trace(TypedDict, total=False):
    """A scatter or heatmap trace, as far as these charts set it."""

    type: Literal["scatter", "heatmap"]
    x: Sequence[float | str]
    y: Sequence[float | str]
    z: list[list[int | None]]
    text: Sequence[str] | list[list[str]]
    mode: str
    textposition: str
    marker: Marker
    line: Line
    name: str
    hovertemplate: str
    meta: str
    visible: bool | str
    zmin: int
    zmax: int
    colorscale: list[list[float | str]]
    showscale: bool
    xgap: int
    ygap: int


class Axis(TypedDict, total=False):
    title: Title
    rangemode: str
    type: str
    tickangle: int
    autorange: str
    automargin: bool


class LayoutShape(TypedDict, total=False):
    """A line across the chart (`xref`/`yref` "paper": the chart's whole width/height)."""

    type: str
    xref: str
    x0: float | str
    x1: float | str
    yref: str
    y0: float
    y1: float
    line: Line
    name: str


class Annotation(TypedDict):
    x: str
    xref: str
    y: float
    yref: str
    text: str
    showarrow: bool
    xanchor: str
    align: str
    yanchor: str
    font: Font
    bgcolor: str
    name: str


class Layout(TypedDict, total=False):
    title: Title
    xaxis: Axis
    yaxis: Axis
    margin: dict[str, int]
    legend: dict[str, float | str]
    height: int
    shapes: list[LayoutShape]
    annotations: list[Annotation]


class Figure(TypedDict):
    """A plotly figure as plain data (site.py renders it)."""

    data: list[Trace]
    layout: Layout


MARK_STYLE: dict[str, Marker] = {
    "regression": {"symbol": "x", "size": 12, "color": "#d62728"},
    "suspected": {"symbol": "diamond-open", "size": 11, "color": "#ff7f0e"},
}


@dataclass(frozen=True, kw_only=True)
class ChartMark:
    """A point or curve a run's verdicts marked, where it sits on a chart."""

    x: float | str  # interactivity, or a run's time on a trend
    y: float
    verdict: str
    text: str


@dataclass(frozen=True, kw_only=True)
class CurveRun:
    """One run's curve: (interactivity, throughput per GPU, concurrency) points."""

    label: str
    points: Sequence[tuple[float, float, int]]


def _layout(title: str, x: str, y: str) -> Layout:
    return {
        "title": {"text": title, "font": {"size": 14}},
        "xaxis": {"title": {"text": x}},
        "yaxis": {"title": {"text": y}, "rangemode": "tozero"},
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "legend": {"orientation": "h", "y": -0.25},
        "height": 380,
    }


def _marks(marks: Sequence[ChartMark]) -> list[Trace]:
    out: list[Trace] = []
    for verdict, style in MARK_STYLE.items():
        mine = [m for m in marks if m.verdict == verdict]
        if mine:
            out.append(
                {
                    "type": "scatter",
                    "x": [m.x for m in mine],
                    "y": [m.y for m in mine],
                    "mode": "markers",
                    "marker": style,
                    "text": [m.text for m in mine],
                    "hovertemplate": "%{text}<extra></extra>",
                    "name": verdict,
                    "meta": "mark",
                }
            )
    return out


# How a run's curve is drawn: the latest (or first bad) solid, an earlier one dotted.
LATEST: Line = {"color": "#1f77b4"}
EARLIER: Line = {"color": "#7f7f7f", "dash": "dot"}
BAD: Line = {"color": "#d62728"}


def curves_figure(
    title: str,
    runs: Sequence[tuple[CurveRun, Line]],
    marks: Sequence[ChartMark],
    height: int = 380,
) -> Figure:
    """Output throughput per GPU against interactivity of each run (with its line
    style), each point labelled with its concurrency; `marks` on top."""
    data: list[Trace] = []
    for run, style in runs:
        if not run.points:
            continue
        ordered = sorted(run.points)
        data.append(
            {
                "type": "scatter",
                "x": [x for x, _, _ in ordered],
                "y": [y for _, y, _ in ordered],
                "text": [f"c={c}" for _, _, c in ordered],
                "mode": "lines+markers+text",
                "textposition": "top center",
                "line": style,
                "name": run.label,
                "hovertemplate": "%{text}: %{y:,.1f} tok/s/GPU at %{x:.1f} tok/s/user"
                "<extra>%{fullData.name}</extra>",
            }
        )
    data += _marks(marks)
    layout = _layout(title, "interactivity (tok/s/user)", "output tok/s/GPU")
    layout["height"] = height
    return {"data": data, "layout": layout}


def curve_figure(
    title: str, latest: CurveRun, before: CurveRun | None, marks: Sequence[ChartMark]
) -> Figure:
    """The latest run's curve beside an earlier run's (dotted)."""
    runs = [(before, EARLIER), (latest, LATEST)]
    return curves_figure(title, [(r, style) for r, style in runs if r is not None], marks)


@dataclass(frozen=True, kw_only=True)
class FirstBad:
    """An event's first bad run on a trend chart: a vertical line, labelled."""

    t: str
    label: str
    verdict: str


def trend_figure(
    title: str,
    y_title: str,
    series: dict[str, tuple[list[str], list[float]]],
    changes: Sequence[tuple[str, str]],
    marks: Sequence[ChartMark],
    *,
    quiet: Sequence[tuple[str, str]] = (),
    first_bad: Sequence[FirstBad] = (),
    hover: dict[str, list[str]] | None = None,
    reference: float | None = None,
) -> Figure:
    """`series`: trace name -> (run times, values); `changes`: (run time, what changed),
    each a marker; `quiet`: changes of the image digest alone, one hidden trace; `hover`:
    trace name -> a text per value; `reference`: a horizontal line (100% of baseline)."""
    data: list[Trace] = []
    for name, (xs, ys) in series.items():
        trace: Trace = {"type": "scatter", "x": xs, "y": ys, "mode": "lines+markers",
                        "name": name, "marker": {"size": 4}}  # fmt: skip
        if hover and name in hover:
            trace["text"] = hover[name]
            trace["hovertemplate"] = "%{text}<extra>%{fullData.name}</extra>"
        data.append(trace)
    top = max((max(ys) for _, ys in series.values() if ys), default=1.0)
    changed: Marker = {"symbol": "triangle-down", "size": 10, "color": "#444"}
    digest: Marker = {"symbol": "line-ns-open", "size": 8, "color": "#aaa"}
    for found, name, style, shown in (
        (changes, "image or version changed", changed, True),
        (quiet, f"image digest only ({len(quiet)})", digest, "legendonly"),
    ):
        if found:
            data.append(
                {
                    "type": "scatter",
                    "x": [t for t, _ in found],
                    "y": [top * 1.08] * len(found),
                    "mode": "markers",
                    "marker": style,
                    "text": [what for _, what in found],
                    "hovertemplate": "changed: %{text}<extra></extra>",
                    "name": name,
                    "meta": "change",
                    "visible": shown,
                }
            )
    data += _marks(marks)
    layout = _layout(title, "run", y_title)
    if reference is not None:
        layout["yaxis"] = {"title": {"text": y_title}}
    shapes: list[LayoutShape] = []
    notes: list[Annotation] = []
    if reference is not None:
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y",
                       "y0": reference, "y1": reference,
                       "line": {"color": "#999", "width": 1, "dash": "dot"}})  # fmt: skip
    for i, f in enumerate(first_bad):
        color = MARK_STYLE.get(f.verdict, MARK_STYLE["suspected"])["color"]
        shapes.append({"type": "line", "xref": "x", "x0": f.t, "x1": f.t, "yref": "paper",
                       "y0": 0, "y1": 1, "line": {"color": color, "width": 2, "dash": "dash"},
                       "name": "first bad run"})  # fmt: skip
        notes.append({"x": f.t, "xref": "x", "y": 1 - 0.09 * i, "yref": "paper",
                      "text": f.label, "showarrow": False, "xanchor": "right", "align": "right",
                      "yanchor": "top",
                      "font": {"size": 10, "color": color}, "bgcolor": "rgba(255,255,255,0.8)",
                      "name": "first bad run"})  # fmt: skip
    if shapes:
        layout["shapes"] = shapes
    if notes:
        layout["annotations"] = notes
    return {"data": data, "layout": layout}


# The heatmap's cells: not measured (no colour), ok, suspected, regression.
HEAT = {"ok": 0, "suspected": 1, "regression": 2}
_HEAT_SCALE: list[list[float | str]] = [[0.0, "#c7e9c0"], [0.5, "#fee391"], [1.0, "#ef6548"]]


def heatmap_figure(
    title: str,
    runs: Sequence[str],
    rows: Sequence[str],
    z: Sequence[Sequence[int | None]],
    text: Sequence[Sequence[str]],
) -> Figure:
    """A grid of runs (columns, oldest first) by rows (config and pair), each cell the
    worst verdict of its points in that run (HEAT), the text in its hover."""
    return {
        "data": [
            {
                "type": "heatmap",
                "x": list(runs),
                "y": list(rows),
                "z": [list(r) for r in z],
                "text": [list(r) for r in text],
                "hovertemplate": "%{y}<br>%{x}: %{text}<extra></extra>",
                "zmin": 0,
                "zmax": 2,
                "colorscale": _HEAT_SCALE,
                "showscale": False,
                "xgap": 2,
                "ygap": 2,
                "name": "verdicts",
            }
        ],
        "layout": {
            "title": {"text": title, "font": {"size": 14}},
            "xaxis": {"type": "category", "tickangle": -45},
            "yaxis": {"type": "category", "autorange": "reversed", "automargin": True},
            "margin": {"l": 60, "r": 20, "t": 40, "b": 130},
            "height": 160 + 26 * len(rows),
        },
    }


def accuracy_figure(
    title: str, times: list[str], scores: list[float], thresholds: list[float]
) -> Figure:
    layout = _layout(title, "run", "score")
    layout["yaxis"] = {"title": {"text": "score"}}
    return {
        "data": [
            {"type": "scatter", "x": times, "y": scores, "mode": "lines+markers", "name": "score"},
            {
                "type": "scatter",
                "x": times,
                "y": thresholds,
                "mode": "lines",
                "line": {"dash": "dash"},
                "name": "threshold",
            },
        ],
        "layout": layout,
    }
