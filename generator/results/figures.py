"""The dashboard's charts as plotly figure dicts (plain data; report.py renders them).

- curve: output throughput per GPU against interactivity of the latest run beside the
  last run before the most recent image change, each point labelled with its concurrency,
  the latest run's marked points on it;
- trend: a metric of every point of a config and pair over runs, one trace per
  concurrency, change markers where the image digest or a version changed (the change in
  the hover), and the points the verdicts marked (regression, suspected);
- accuracy: a case's score over runs with its threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

Figure = dict[str, Any]
MARK_STYLE = {
    "regression": {"symbol": "x", "size": 12, "color": "#d62728"},
    "suspected": {"symbol": "diamond-open", "size": 11, "color": "#ff7f0e"},
}


@dataclass(frozen=True, kw_only=True)
class Mark:
    """A point or curve a run's verdicts marked, where it sits on a chart."""

    x: Any
    y: float
    verdict: str
    text: str


@dataclass(frozen=True, kw_only=True)
class CurveRun:
    """One run's curve: (interactivity, throughput per GPU, concurrency) points."""

    label: str
    points: Sequence[tuple[float, float, int]]


def _layout(title: str, x: str, y: str, log: bool = False) -> dict[str, Any]:
    return {
        "title": {"text": title, "font": {"size": 14}},
        "xaxis": {"title": {"text": x}},
        "yaxis": {"title": {"text": y}, **({"type": "log"} if log else {"rangemode": "tozero"})},
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "legend": {"orientation": "h", "y": -0.25},
        "height": 380,
    }


def _marks(marks: Sequence[Mark]) -> list[dict[str, Any]]:
    out = []
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
LATEST = {"color": "#1f77b4"}
EARLIER = {"color": "#7f7f7f", "dash": "dot"}
BAD = {"color": "#d62728"}


def curves_figure(
    title: str,
    runs: Sequence[tuple[CurveRun, dict[str, Any]]],
    marks: Sequence[Mark],
    height: int = 380,
) -> Figure:
    """Output throughput per GPU against interactivity of each run (with its line
    style), each point labelled with its concurrency; `marks` on top."""
    data: list[dict[str, Any]] = []
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
    return {"data": data, "layout": {**layout, "height": height}}


def curve_figure(
    title: str, latest: CurveRun, before: CurveRun | None, marks: Sequence[Mark]
) -> Figure:
    """The latest run's curve beside an earlier run's (dotted)."""
    runs = [(before, EARLIER), (latest, LATEST)]
    return curves_figure(title, [(r, style) for r, style in runs if r is not None], marks)


def trend_figure(
    title: str,
    y_title: str,
    series: dict[str, tuple[list[str], list[float]]],
    changes: Sequence[tuple[str, str]],
    marks: Sequence[Mark],
    *,
    log: bool = False,
) -> Figure:
    """`series`: trace name -> (run times, values); `changes`: (run time, what changed)."""
    data: list[dict[str, Any]] = [
        {
            "type": "scatter",
            "x": xs,
            "y": ys,
            "mode": "lines+markers",
            "name": name,
            "marker": {"size": 4},
        }
        for name, (xs, ys) in series.items()
    ]
    top = max((max(ys) for _, ys in series.values() if ys), default=1.0)
    if changes:
        data.append(
            {
                "type": "scatter",
                "x": [t for t, _ in changes],
                "y": [top * 1.08] * len(changes),
                "mode": "markers",
                "marker": {"symbol": "triangle-down", "size": 10, "color": "#444"},
                "text": [what for _, what in changes],
                "hovertemplate": "changed: %{text}<extra></extra>",
                "name": "image or version changed",
                "meta": "change",
            }
        )
    data += _marks(marks)
    return {"data": data, "layout": _layout(title, "run", y_title, log=log)}


def accuracy_figure(
    title: str, times: list[str], scores: list[float], thresholds: list[float]
) -> Figure:
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
        "layout": {**_layout(title, "run", "score"), "yaxis": {"title": {"text": "score"}}},
    }
