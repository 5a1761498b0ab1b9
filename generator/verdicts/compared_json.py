"""A compared point, curve and event as `results compare --json` writes them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from generator.catalog.regression import weight

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.results.history import ServerKey
    from generator.verdicts.model import CurveVerdict, Event, MetricVerdict


@dataclass(frozen=True, kw_only=True)
class PointResult:
    identity: dict[str, Any]
    verdict: str
    reason: str | None
    metrics: tuple[MetricVerdict, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.identity,
            "verdict": self.verdict,
            "reason": self.reason,
            "metrics": {m.metric: m.as_dict() for m in self.metrics},
        }


@dataclass(frozen=True, kw_only=True)
class CurveOut:
    server: ServerKey
    result: CurveVerdict

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        return {
            "config": self.server.config,
            "pair": f"{r.pair[0]}x{r.pair[1]}",
            "isl": r.pair[0],
            "osl": r.pair[1],
            "fingerprint": self.server.fingerprint,
            "runner_label": self.server.runner_label,
            "image_family": self.server.image_family,
            "verdict": r.verdict,
            "interactivity": None,
            "change": r.change,
            "compared": None,
            "note": r.note,
        }


def event_dict(e: Event) -> dict[str, Any]:
    return {
        "id": e.id,
        "state": e.state,
        "confirmed_by": e.confirmed_by,
        "confirmed_in": e.confirmed_in,
        "new_confirmation": e.new_confirmation,
        "cause": e.cause,
        "config": e.server.config,
        "server": e.server.as_dict(),
        "first_bad_run": e.first_bad_run,
        "last_good_run": e.last_good_run,
        "runs": e.runs,
        "points": [p.as_dict() for p in e.points],
        "curves": [{"isl": isl, "osl": osl} for isl, osl in e.curves],
        "metrics": list(e.metrics),
        # The metric that defines the event first (every reader shows them in this order).
        "changes": {
            m: c.as_dict()
            for m, c in sorted(e.changes.items(), key=lambda i: weight(i[0], i[1].change))
        },
        "differences": {k: list(v) for k, v in e.differences.items()},
        "how": list(e.how),
    }
