"""The verdicts of a run as the run summary and the dashboard show them (verdicts_json.py
reads them), and the readers of their numbers and ISL/OSL pairs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

REGRESSION = "regression"
SUSPECTED = "suspected"
# Verdicts a dashboard marks on its charts, most severe first.
MARKED = (REGRESSION, SUSPECTED)


@dataclass(frozen=True, kw_only=True)
class MetricVerdict:
    metric: str
    verdict: str
    change: float | None


@dataclass(frozen=True, kw_only=True)
class PointVerdict:
    config: str
    isl: int
    osl: int
    concurrency: int
    verdict: str
    reason: str | None
    metrics: tuple[MetricVerdict, ...]

    @property
    def pair(self) -> str:
        return f"{self.isl}x{self.osl}"


@dataclass(frozen=True, kw_only=True)
class ShownCurveVerdict:
    config: str
    isl: int
    osl: int
    verdict: str
    interactivity: float | None
    change: float | None

    @property
    def pair(self) -> str:
        return f"{self.isl}x{self.osl}"


@dataclass(frozen=True, kw_only=True)
class Move:
    """How much one metric of an event moved: the change and its interval (relative)."""

    metric: str
    change: float
    low: float | None
    high: float | None

    @property
    def text(self) -> str:
        """`-8.1% [-9.0%, -7.2%]`."""
        interval = (
            f" [{self.low:+.1%}, {self.high:+.1%}]"
            if self.low is not None and self.high is not None
            else ""
        )
        return f"{self.change:+.1%}{interval}"


@dataclass(frozen=True, kw_only=True)
class ShownEvent:
    id: str
    config: str
    verdict: str
    first_bad_run: str | None
    last_good_run: str | None
    points: tuple[str, ...]
    metrics: tuple[str, ...]
    changes: tuple[tuple[str, str], ...]
    # (isl, osl, concurrency) of its points, concurrency None for a curve
    at: tuple[tuple[int, int, int | None], ...] = ()
    state: str | None = None  # the engine's state: suspected, confirmed, cleared, ...
    confirmed_by: str | None = None
    runs: int = 1  # runs that reported it, as the run that wrote this says
    # the metrics that moved, the one that defines the event first
    moves: tuple[Move, ...] = ()
    # what differs between the last good and the first bad run: (what, before, after)
    differences: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, kw_only=True)
class Verdicts:
    outcome: str
    reason: str | None
    points: tuple[PointVerdict, ...]
    curves: tuple[ShownCurveVerdict, ...]
    events: tuple[ShownEvent, ...]
    gates: tuple[str, ...]
    missing_cases: tuple[str, ...]
    causes: tuple[str, ...] = ()  # why the run fails, a line each

    @property
    def regressions(self) -> int:
        return sum(p.verdict == REGRESSION for p in self.points) + sum(
            c.verdict == REGRESSION for c in self.curves
        )


def number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def pair_of(item: Mapping[str, Any]) -> tuple[int, int]:
    if isinstance(item.get("isl"), int) and isinstance(item.get("osl"), int):
        return int(item["isl"]), int(item["osl"])
    isl, _, osl = str(item.get("pair") or "0x0").partition("x")
    return (int(isl), int(osl)) if isl.isdigit() and osl.isdigit() else (0, 0)
