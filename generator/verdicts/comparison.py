"""A run's comparison with its history: its points, curves, events and gates, what fails
it and its exit code, and the verdicts JSON it is written as, point, curve and event
(docs/results.md, "The verdicts JSON")."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from generator.catalog.regression import weight
from generator.core.logtext import one_line
from generator.results.expected import empty_reason
from generator.results.verdict import MISSING, REGRESSION
from generator.verdicts.model import CONFIRMED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.regression import Policy
    from generator.results.expected import PointIdentity
    from generator.results.gates import Gate
    from generator.results.history import ServerKey
    from generator.results.verdicts_json import (
        CurveDoc,
        EventDoc,
        MetricDoc,
        PointDoc,
        VerdictsDoc,
    )
    from generator.verdicts.model import CurveVerdict, Event

SCHEMA = "sglang-ci/verdicts/2"


@dataclass(frozen=True, kw_only=True)
class PointResult:
    identity: PointIdentity
    verdict: str
    reason: str | None
    metrics: tuple[MetricDoc, ...]

    def as_dict(self) -> PointDoc:
        return {
            **self.identity,
            "verdict": self.verdict,
            "reason": self.reason,
            "metrics": {m["metric"]: m for m in self.metrics},
        }


@dataclass(frozen=True, kw_only=True)
class CurveOut:
    server: ServerKey
    result: CurveVerdict

    def as_dict(self) -> CurveDoc:
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


def event_dict(e: Event) -> EventDoc:
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


@dataclass(frozen=True, kw_only=True)
class Comparison:
    policy: Policy
    policy_source: str
    current: str
    history_runs: int
    points: tuple[PointResult, ...]
    curves: tuple[CurveOut, ...]
    events: tuple[Event, ...]
    gates: tuple[Gate, ...]
    missing_cases: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]
    # Records the current run reported: a run without any fails (expected.empty_reason).
    reported: int = 1
    expected_points: int | None = None
    # Triage, not a verdict rule: events a person marked `invalid` (noise, infra) on their
    # tracking issue (generator/confirm/triage.py), read from the history and the run's
    # own triage file. They stay in `events` and `confirmed`; they never fail a run.
    invalid: frozenset[str] = frozenset()

    @property
    def missing(self) -> int:
        """Missing data fails a run: points and cases expected without a record."""
        return sum(p.verdict == MISSING for p in self.points) + len(self.missing_cases)

    @property
    def empty(self) -> str | None:
        return empty_reason(self.reported, self.expected_points)

    @property
    def regressions(self) -> int:
        """Points that are part of a confirmed event (a curve is its points)."""
        return sum(p.verdict == REGRESSION for p in self.points)

    @property
    def confirmed(self) -> tuple[Event, ...]:
        """Events this run confirmed."""
        return tuple(e for e in self.events if e.new_confirmation and e.state == CONFIRMED)

    @property
    def failing(self) -> tuple[Event, ...]:
        """Events this run confirmed whose change is at least the metric's min_change: the
        ones that fail it (a smaller confirmed change is reported, not failed on), but an
        event marked invalid (triage)."""
        return tuple(
            e for e in self.confirmed if _large(e, self.policy) and e.id not in self.invalid
        )

    @property
    def exit_code(self) -> int:
        fail_regression = self.failing and self.policy.on_regression == "fail"
        fail_gate = self.gates and self.policy.on_gate == "fail"
        return 1 if fail_regression or fail_gate or self.missing or self.empty else 0

    @property
    def causes(self) -> list[str]:
        """Why the run fails, one line per cause (empty when it passes)."""
        if not self.exit_code:
            return []
        found: list[str] = []
        if self.policy.on_regression == "fail":
            for e in self.failing:
                metric, change = min(e.changes.items(), key=lambda i: weight(i[0], i[1].change))
                size = "" if change.change is None else f" {change.change:+.1%}"
                found.append(
                    f"confirmed regression of {e.server.config}: {metric}{size} "
                    f"since {e.first_bad_run} ({e.id})"
                )
        if self.policy.on_gate == "fail":
            found += [f"failed gate: {g.kind} {g.id}: {one_line(g.message)}" for g in self.gates]
        if self.missing:
            found.append(f"{self.missing} expected point(s) or case(s) reported no record")
        if self.empty:
            found.append(self.empty)
        return found

    def counts(self) -> dict[str, dict[str, int]]:
        return {
            "points": dict(Counter(p.verdict for p in self.points)),
            "curves": dict(Counter(c.result.verdict for c in self.curves)),
            "events": dict(Counter(e.state for e in self.events)),
        }

    def as_dict(self) -> VerdictsDoc:
        return {
            "schema": SCHEMA,
            "current": self.current,
            "history_runs": self.history_runs,
            "policy": {**self.policy.as_dict(), "source": self.policy_source},
            "exit_code": self.exit_code,
            "outcome": "fail" if self.exit_code else "pass",
            "reason": self.empty,
            "causes": self.causes,
            "missing": self.missing,
            "regressions": self.regressions,
            "confirmed": [e.id for e in self.confirmed],
            "invalid": sorted(self.invalid),
            "counts": self.counts(),
            "events": [event_dict(e) for e in self.events],
            "gates": [g.as_dict() for g in self.gates],
            "missing_cases": [{"id": i, "case": c} for i, c in self.missing_cases],
            "problems": list(self.problems),
            "points": [p.as_dict() for p in self.points],
            "curves": [c.as_dict() for c in self.curves],
        }


def _large(e: Event, policy: Policy) -> bool:
    metric, change = min(e.changes.items(), key=lambda i: weight(i[0], i[1].change))
    return abs(change.change) >= dict(policy.min_change).get(metric, 0.0)
