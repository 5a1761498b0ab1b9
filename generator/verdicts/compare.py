"""`results compare`: verdicts of a run's points and curves against the history, its
events, its gates, and the exit code (docs/results.md, "Verdicts").

series.py reads each server's series through one narrow table; generator/verdicts judges
them (every run of a server replayed against the noise the whole history measures, with
the A/B outcomes the history keeps); this module adds what the run misses and what fails
it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from generator.catalog.regression import weight
from generator.launch import jsonread
from generator.launch.logtext import one_line
from generator.results.expected import Expected, empty_reason, missing_cases, missing_points
from generator.results.gates import Gate, gates
from generator.results.history import PointKey, ServerKey
from generator.results.record import is_infrastructure
from generator.results.series import read_series
from generator.results.store import CURRENT, Store
from generator.results.verdict import (
    IMPROVED,
    INVALID,
    MISSING,
    REGRESSION,
    SUSPECTED,
    TRADE_OFF,
    worst,
)
from generator.verdicts.judge import judge
from generator.verdicts.model import CONFIRMED, CurveVerdict, Event, MetricVerdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.regression import Policy

SCHEMA = "sglang-ci/verdicts/2"
THROUGHPUT = "output_throughput_per_gpu"
LATENCY = ("median_ttft_ms", "median_tpot_ms")
IDENTITY = (
    "config", "pair", "isl", "osl", "concurrency", "fingerprint", "runner_label", "image_family",
)  # fmt: skip
CLEARED = "cleared"


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
        points: dict[str, int] = defaultdict(int)
        curves: dict[str, int] = defaultdict(int)
        found: dict[str, int] = defaultdict(int)
        for p in self.points:
            points[p.verdict] += 1
        for c in self.curves:
            curves[c.result.verdict] += 1
        for e in self.events:
            found[e.state] += 1
        return {"points": dict(points), "curves": dict(curves), "events": dict(found)}

    def as_dict(self) -> dict[str, Any]:
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


def _missing_reason(row: dict[str, Any]) -> str | None:
    if row["status"] == "cancelled":
        return "cancelled"
    reason, error = row["reason"], row["error"]
    if is_infrastructure(reason, error):
        return str(reason if (reason or "").startswith("infrastructure") else error)
    return None


def _server_of(row: Mapping[str, Any]) -> ServerKey:
    return ServerKey(
        config=str(row["config"]),
        fingerprint=row["fingerprint"] or None,
        runner_label=row["runner_label"] or None,
        image_family=row["image_family"] or None,
    )


def _large(e: Event, policy: Policy) -> bool:
    metric, change = min(e.changes.items(), key=lambda i: weight(i[0], i[1].change))
    return abs(change.change) >= dict(policy.min_change).get(metric, 0.0)


def history_outcomes(store: Store) -> dict[str, dict[str, str]]:
    """The A/B outcomes the history keeps: run name -> event id -> confirmed or cleared,
    from each history run's confirmation/results.json (what `confirm outcomes` judged
    from that night's A/B documents)."""
    out: dict[str, dict[str, str]] = {}
    for name, folder in store.dirs.items():
        path = Path(folder) / "confirmation" / "results.json"
        try:
            data = jsonread.load(path)
        except (OSError, ValueError):
            continue
        if isinstance(data, list):
            out[name] = {
                str(d["event"]): str(d["result"])
                for d in data
                if isinstance(d, dict) and "event" in d and "result" in d
            }
    return out


def compare(
    store: Store,
    policy: Policy,
    *,
    source: str,
    current: str,
    expected: Expected | None,
    outcomes: Mapping[str, str] | None = None,
    invalid: frozenset[str] = frozenset(),
) -> Comparison:
    """Verdicts of the CURRENT records of `store` against its HISTORY records; `outcomes`:
    tonight's A/B (event id -> confirmed or cleared)."""
    series = read_series(store, policy.history)
    known = history_outcomes(store)
    if outcomes:
        known[current] = dict(outcomes)
    judged = judge(series, policy, known)
    by_server = {j.series.key: j for j in judged}
    curves = [CurveOut(server=j.series.key, result=c) for j in judged for c in j.curves.values()]
    points: list[PointResult] = []
    for row in store.rows(
        "SELECT * FROM records WHERE role = 'current' AND kind = 'point' "
        "ORDER BY config, isl, osl, concurrency, id"
    ):
        identity = {k: row[k] for k in IDENTITY}
        missing = _missing_reason(row)
        if missing or not row["valid"] or row["status"] != "ok":
            verdict = MISSING if missing else INVALID
            reason = missing or row["reason"] or f"status {row['status']}"
            points.append(
                PointResult(identity=identity, verdict=verdict, reason=reason, metrics=())
            )
            continue
        server = _server_of(row)
        point = PointKey(isl=row["isl"], osl=row["osl"], concurrency=row["concurrency"])
        mine = by_server.get(server)
        results = _trade_offs(list(mine.points.get(point, ())) if mine else [])
        verdict = worst([m.verdict for m in results])
        points.append(
            PointResult(identity=identity, verdict=verdict, reason=None, metrics=tuple(results))
        )
    for identity, reason in missing_points(store, expected):
        points.append(PointResult(identity=identity, verdict=MISSING, reason=reason, metrics=()))
    events = [e for key in sorted(by_server, key=_order) for e in by_server[key].events]
    return Comparison(
        policy=policy,
        policy_source=source,
        current=current,
        history_runs=len(store.rows("SELECT run FROM runs WHERE role = 'history'")),
        points=tuple(points),
        curves=tuple(curves),
        events=tuple(events),
        gates=tuple(gates(store)),
        missing_cases=tuple(missing_cases(store, expected)),
        problems=tuple(str(p) for p in store.problems),
        reported=store.count(CURRENT),
        expected_points=len(expected.points) if expected else None,
        invalid=invalid,
    )


def _order(key: ServerKey) -> tuple[str, ...]:
    return tuple(v or "" for v in key.as_dict().values())


def _trade_offs(results: list[MetricVerdict]) -> list[MetricVerdict]:
    """A latency regression at a point whose throughput per GPU improved is a move along
    the point's curve: `trade-off`, not a failure."""
    throughput = next((m for m in results if m.metric == THROUGHPUT), None)
    if throughput is None or throughput.verdict != IMPROVED:
        return results
    return [
        replace(m, verdict=TRADE_OFF)
        if m.metric in LATENCY and m.verdict in (REGRESSION, SUSPECTED)
        else m
        for m in results
    ]
