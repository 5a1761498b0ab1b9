"""The dashboard's charts as plotly figure dicts (plain data; `site.py` renders them).

- curve: throughput per GPU vs interactivity of the latest run over the baseline band
  (median +- band of the last N runs, interpolated at the latest run's interactivities);
- trend: a metric of every point of a config and pair over runs, one trace per
  concurrency, with the runs where the config's image changed marked;
- accuracy: a case's score over runs with its threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from generator.results.curve import Curve, interpolate, stats
from generator.results.verdict import Rule

Figure = dict[str, Any]


def _layout(title: str, x: str, y: str) -> dict[str, Any]:
    return {
        "title": {"text": title, "font": {"size": 14}},
        "xaxis": {"title": {"text": x}},
        "yaxis": {"title": {"text": y}, "rangemode": "tozero"},
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "legend": {"orientation": "h", "y": -0.25},
        "height": 380,
    }


def curve_figure(
    title: str, latest: Curve, history: Sequence[Curve], rule: Rule, runs: int
) -> Figure:
    data: list[dict[str, Any]] = []
    xs, low, mid, high = [], [], [], []
    for x, _ in latest:
        base = stats([v for v in (interpolate(h, x) for h in history) if v is not None][:runs])
        if base is not None:
            band = rule.band(base)
            xs.append(x)
            low.append(base.median - band)
            mid.append(base.median)
            high.append(base.median + band)
    if xs:
        line = {"width": 0}
        data += [
            {
                "type": "scatter",
                "x": xs,
                "y": low,
                "mode": "lines",
                "line": line,
                "name": "band low",
                "showlegend": False,
            },
            {
                "type": "scatter",
                "x": xs,
                "y": high,
                "mode": "lines",
                "line": line,
                "fill": "tonexty",
                "fillcolor": "rgba(99,110,250,0.2)",
                "name": f"baseline band (last {runs} runs)",
            },
            {
                "type": "scatter",
                "x": xs,
                "y": mid,
                "mode": "lines",
                "line": {"dash": "dot"},
                "name": "baseline median",
            },
        ]
    data.append(
        {
            "type": "scatter",
            "x": [x for x, _ in latest],
            "y": [y for _, y in latest],
            "mode": "lines+markers",
            "name": "latest run",
            "line": {"color": "#d62728"},
        }
    )
    return {
        "data": data,
        "layout": _layout(title, "interactivity (tok/s/user)", "output tok/s/GPU"),
    }


def trend_figure(
    title: str,
    y_title: str,
    series: dict[str, tuple[list[str], list[float]]],
    changes: Sequence[tuple[str, str]],
) -> Figure:
    """`series`: trace name -> (run times, values); `changes`: (run time, new image)."""
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
                "y": [top * 1.05] * len(changes),
                "mode": "markers",
                "marker": {"symbol": "triangle-down", "size": 9, "color": "#444"},
                "text": [image for _, image in changes],
                "hovertemplate": "image changed: %{text}<extra></extra>",
                "name": "image changed",
            }
        )
    return {"data": data, "layout": _layout(title, "run", y_title)}


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
