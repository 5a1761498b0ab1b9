"""`results compare`: verdicts of a run's points and curves against the history, its
events, its gates, and the exit code (docs/results.md, "Verdicts").

series.py reads each server's series through one narrow table; judge.py judges each
server's run (points, pooled series, change points, curves); events.py groups what it
found into events; carry.py applies what earlier verdicts and the night's A/B said.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from generator.catalog.regression import weight
from generator.launch.logtext import one_line
from generator.results.carry import (
    CLEARED,
    Earlier,
    Memory,
    carried,
    earlier,
    with_outcome,
)
from generator.results.changepoint import Detector, edivisive
from generator.results.events import CONFIRMED, Event, events, merged
from generator.results.expected import Expected, empty_reason, missing_cases, missing_points
from generator.results.gates import Gate, gates
from generator.results.history import PointKey, ServerKey, ServerSeries
from generator.results.judge import (
    CURVE,
    MetricResult,
    ServerJudgement,
    history_noise,
    judge_server,
    rules,
)
from generator.results.record import is_infrastructure
from generator.results.series import read_series
from generator.results.store import CURRENT, Store
from generator.results.verdict import (
    IMPROVED,
    INVALID,
    MISSING,
    OK,
    REGRESSION,
    SUSPECTED,
    TRADE_OFF,
    worst,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.regression import Policy
    from generator.results.curve import CurveResult

SCHEMA = "sglang-ci/verdicts/2"
THROUGHPUT = "output_throughput_per_gpu"
LATENCY = ("median_ttft_ms", "median_tpot_ms")
IDENTITY = (
    "config", "pair", "isl", "osl", "concurrency", "fingerprint", "runner_label", "image_family",
)  # fmt: skip
_STATE = {CONFIRMED: REGRESSION, "suspected": SUSPECTED, CLEARED: OK}


@dataclass(frozen=True, kw_only=True)
class PointResult:
    identity: dict[str, Any]
    verdict: str
    reason: str | None
    metrics: tuple[MetricResult, ...]

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
    result: CurveResult
    verdict: str

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
            "verdict": self.verdict,
            "interactivity": r.interactivity,
            "change": r.change,
            "compared": r.compared,
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
    # The earlier confirmed changes (open or closed) this run kept (carry.Memory).
    confirmed_changes: tuple[Earlier, ...] = ()

    @property
    def missing(self) -> int:
        """Missing data fails a run: points and cases expected without a record."""
        return sum(p.verdict == MISSING for p in self.points) + len(self.missing_cases)

    @property
    def empty(self) -> str | None:
        return empty_reason(self.reported, self.expected_points)

    @property
    def regressions(self) -> int:
        """Points and curves that are part of a confirmed event."""
        return sum(p.verdict == REGRESSION for p in self.points) + sum(
            c.verdict == REGRESSION for c in self.curves
        )

    @property
    def confirmed(self) -> tuple[Event, ...]:
        """Events confirmed by this run (the ones that fail it)."""
        return tuple(e for e in self.events if e.new_confirmation and e.state == CONFIRMED)

    @property
    def exit_code(self) -> int:
        fail_regression = self.confirmed and self.policy.on_regression == "fail"
        fail_gate = self.gates and self.policy.on_gate == "fail"
        return 1 if fail_regression or fail_gate or self.missing or self.empty else 0

    @property
    def causes(self) -> list[str]:
        """Why the run fails, one line per cause (empty when it passes)."""
        if not self.exit_code:
            return []
        found: list[str] = []
        if self.policy.on_regression == "fail":
            for e in self.confirmed:
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
            curves[c.verdict] += 1
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
            "counts": self.counts(),
            "events": [event_dict(e) for e in self.events],
            "confirmed_changes": [c.as_dict() for c in self.confirmed_changes],
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


def _final_events(
    judged: list[ServerJudgement], memory: Mapping[ServerKey, Memory], outcomes: Mapping[str, str]
) -> dict[ServerKey, list[Event]]:
    out: dict[ServerKey, list[Event]] = {}
    for j in judged:
        found: list[Event] = []
        if j.found:
            m = memory[j.series.key]
            found = [carried(e, m.events, e.stretch, m.changes) for e in events(j, m.known)]
        out[j.series.key] = [with_outcome(e, outcomes.get(e.id)) for e in merged(found)]
    return out


def _last_run(s: ServerSeries) -> str | None:
    """The newest history run of the server itself (not of a previous fingerprint)."""
    mine = [r.name for r in s.runs[:-1] if r.fingerprint == s.key.fingerprint]
    return mine[-1] if mine else None


def _memory(store: Store, s: ServerSeries, window: int) -> Memory:
    """What the server's last run said of it, its confirmed changes kept while their first
    bad run lies in the judgement's window."""
    last = _last_run(s)
    m = earlier(store.manifests.get(last) if last else None, s.key)
    return m.kept({r.name for r in s.runs[-window:]})


def _confirmed_changes(memory: Mapping[ServerKey, Memory]) -> tuple[Earlier, ...]:
    """The earlier confirmed changes each server kept; with this run's confirmed events
    (in `events`), what the next run keeps (Memory.kept)."""
    return tuple(c for key in sorted(memory, key=_order) for c in memory[key].changes)


def _states(
    judged: list[ServerJudgement], found: Mapping[ServerKey, list[Event]]
) -> dict[tuple[ServerKey, Any, str], str]:
    """(server, point or pair, metric) -> the verdict its event gives it."""
    out: dict[tuple[ServerKey, Any, str], str] = {}
    for j in judged:
        for e in found.get(j.series.key, ()):
            state = _STATE.get(e.state, SUSPECTED)
            for f in e.found:
                if f.scope == CURVE and f.point is not None:
                    out[(j.series.key, (f.point.isl, f.point.osl), CURVE)] = state
                    continue
                targets = [f.point] if f.point is not None else list(f.points)
                for p in targets:
                    key = (j.series.key, p, f.metric)
                    out[key] = worst([out.get(key, OK), state])
    return out


def _metric_verdict(m: MetricResult, state: str | None) -> MetricResult:
    if m.verdict not in (REGRESSION, SUSPECTED):
        return m
    return MetricResult(**{**m.__dict__, "verdict": state or OK})


def compare(
    store: Store,
    policy: Policy,
    *,
    source: str,
    current: str,
    expected: Expected | None,
    outcomes: Mapping[str, str] | None = None,
    detector: Detector = edivisive,
) -> Comparison:
    """Verdicts of the CURRENT records of `store` against its HISTORY records."""
    r = rules(policy, detector)
    series = read_series(store, policy.history)
    memory = {s.key: _memory(store, s, policy.window) for s in series}
    noise = history_noise(series, r)
    judged = [judge_server(s, r, memory[s.key].known, noise[s.key]) for s in series]
    by_server = {j.series.key: j for j in judged}
    found = _final_events(judged, memory, outcomes or {})
    states = _states(judged, found)
    curves: list[CurveOut] = []
    curve_verdict: dict[tuple[ServerKey, tuple[int, int]], str] = {}
    for j in judged:
        for pair, c in j.curves.items():
            verdict = c.verdict
            if verdict in (REGRESSION, SUSPECTED):
                verdict = states.get((j.series.key, pair, CURVE), OK)
            curve_verdict[(j.series.key, pair)] = verdict
            curves.append(CurveOut(server=j.series.key, result=c, verdict=verdict))
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
        results = list(mine.points.get(point, ())) if mine else []
        results = [_metric_verdict(m, states.get((server, point, m.metric))) for m in results]
        results = _trade_offs(results, curve_verdict.get((server, (point.isl, point.osl))))
        verdict = worst([m.verdict for m in results])
        points.append(
            PointResult(identity=identity, verdict=verdict, reason=None, metrics=tuple(results))
        )
    for identity, reason in missing_points(store, expected):
        points.append(PointResult(identity=identity, verdict=MISSING, reason=reason, metrics=()))
    return Comparison(
        policy=policy,
        policy_source=source,
        current=current,
        history_runs=len(store.rows("SELECT run FROM runs WHERE role = 'history'")),
        points=tuple(points),
        curves=tuple(curves),
        events=tuple(e for key in sorted(found, key=_order) for e in found[key]),
        confirmed_changes=_confirmed_changes(memory),
        gates=tuple(gates(store)),
        missing_cases=tuple(missing_cases(store, expected)),
        problems=tuple(str(p) for p in store.problems),
        reported=store.count(CURRENT),
        expected_points=len(expected.points) if expected else None,
    )


def _order(key: ServerKey) -> tuple[str, ...]:
    return tuple(v or "" for v in key.as_dict().values())


def _trade_offs(results: list[MetricResult], curve: str | None) -> list[MetricResult]:
    """A latency regression at a point whose throughput per GPU improved, on a curve that
    is ok or improved, is a move along the curve: `trade-off`, not a failure."""
    throughput = next((m for m in results if m.metric == THROUGHPUT), None)
    if throughput is None or throughput.verdict != IMPROVED or curve not in (OK, IMPROVED):
        return results
    return [
        MetricResult(**{**m.__dict__, "verdict": TRADE_OFF})
        if m.metric in LATENCY and m.verdict in (REGRESSION, SUSPECTED)
        else m
        for m in results
    ]
