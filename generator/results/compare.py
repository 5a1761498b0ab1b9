"""`results compare`: verdicts of a run's points and curves against a history, its gates,
and the exit code (docs/results.md, "Verdicts").

The statistics come from DuckDB (median, MAD and the previous value of each metric over
the last N valid history runs of each point key); verdict.classify decides.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from generator.catalog.regression import METRICS, Policy
from generator.results.curve import Curve, CurveJudgement, judge
from generator.results.expected import Expected, empty_reason, missing_cases, missing_points
from generator.results.gates import Gate, gates
from generator.results.record import is_infrastructure, needs_acceptance
from generator.results.store import CURRENT, Store
from generator.results.verdict import (
    IMPROVED,
    INVALID,
    MISSING,
    OK,
    REGRESSION,
    SUSPECTED,
    TRADE_OFF,
    Rule,
    Stats,
    classify,
    worst,
)

THROUGHPUT = "output_throughput_per_gpu"
LATENCY = ("median_ttft_ms", "median_tpot_ms")

_STATS_SQL = f"""
WITH h AS (
  SELECT u.point_key, u.metric, u.value, runs.rank
  FROM (SELECT role, run, point_key, {", ".join(METRICS)} FROM records
        WHERE role = 'history' AND kind = 'point' AND valid AND status = 'ok')
  UNPIVOT (value FOR metric IN ({", ".join(METRICS)})) u
  JOIN runs USING (role, run)
  WHERE isfinite(u.value)
), ranked AS (
  SELECT *, row_number() OVER (PARTITION BY point_key, metric ORDER BY rank) AS n FROM h
)
SELECT point_key, metric,
  median(value) FILTER (n <= $runs) AS median,
  mad(value) FILTER (n <= $runs) AS mad,
  count(*) FILTER (n <= $runs) AS n,
  max(value) FILTER (n = 1) AS previous,
  median(value) FILTER (n BETWEEN 2 AND $runs + 1) AS prev_median,
  mad(value) FILTER (n BETWEEN 2 AND $runs + 1) AS prev_mad,
  count(*) FILTER (n BETWEEN 2 AND $runs + 1) AS prev_n
FROM ranked WHERE n <= $runs + 1
GROUP BY point_key, metric
"""

_CURVES_SQL = """
SELECT role, curve_key, x_interactivity AS x, output_throughput_per_gpu AS y, rank
FROM records JOIN runs USING (role, run)
WHERE kind = 'point' AND valid AND status = 'ok' AND x_interactivity > 0
  AND output_throughput_per_gpu IS NOT NULL
  AND curve_key IN (SELECT curve_key FROM records WHERE role = 'current')
QUALIFY role = 'current'
  OR dense_rank() OVER (PARTITION BY curve_key ORDER BY rank) <= $window
ORDER BY role, curve_key, rank, x
"""

IDENTITY = ("config", "pair", "isl", "osl", "concurrency", "runner_label", "image_family")


@dataclass(frozen=True, kw_only=True)
class MetricResult:
    metric: str
    verdict: str
    current: float
    baseline: float | None
    band: float | None
    change: float | None
    runs: int
    previous: float | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


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
class CurveResult:
    identity: dict[str, Any]
    judgement: CurveJudgement

    def as_dict(self) -> dict[str, Any]:
        return {**self.identity, **self.judgement.__dict__}


@dataclass(frozen=True, kw_only=True)
class Comparison:
    policy: Policy
    policy_source: str
    current: str
    history_runs: int
    points: tuple[PointResult, ...]
    curves: tuple[CurveResult, ...]
    gates: tuple[Gate, ...]
    missing_cases: tuple[tuple[str, str], ...]
    problems: tuple[str, ...]
    # Records the current run reported: a run without any fails (expected.empty_reason).
    reported: int = 1
    expected_points: int | None = None

    @property
    def missing(self) -> int:
        """Missing data fails a run: points and cases expected without a record."""
        return sum(p.verdict == MISSING for p in self.points) + len(self.missing_cases)

    @property
    def empty(self) -> str | None:
        return empty_reason(self.reported, self.expected_points)

    @property
    def regressions(self) -> int:
        return sum(p.verdict == REGRESSION for p in self.points) + sum(
            c.judgement.verdict == REGRESSION for c in self.curves
        )

    @property
    def exit_code(self) -> int:
        fail_regression = self.regressions and self.policy.on_regression == "fail"
        fail_gate = self.gates and self.policy.on_gate == "fail"
        return 1 if fail_regression or fail_gate or self.missing or self.empty else 0

    def counts(self) -> dict[str, dict[str, int]]:
        points: dict[str, int] = defaultdict(int)
        curves: dict[str, int] = defaultdict(int)
        for p in self.points:
            points[p.verdict] += 1
        for c in self.curves:
            curves[c.judgement.verdict] += 1
        return {"points": dict(points), "curves": dict(curves)}

    def as_dict(self) -> dict[str, Any]:
        return {
            "schema": "sglang-ci/verdicts/1",
            "current": self.current,
            "history_runs": self.history_runs,
            "policy": {**self.policy.as_dict(), "source": self.policy_source},
            "exit_code": self.exit_code,
            "outcome": "fail" if self.exit_code else "pass",
            "reason": self.empty,
            "missing": self.missing,
            "regressions": self.regressions,
            "counts": self.counts(),
            "gates": [g.as_dict() for g in self.gates],
            "missing_cases": [{"id": i, "case": c} for i, c in self.missing_cases],
            "problems": list(self.problems),
            "points": [p.as_dict() for p in self.points],
            "curves": [c.as_dict() for c in self.curves],
        }


def rule(policy: Policy, metric: str) -> Rule:
    return Rule(
        higher_is_better=METRICS[metric],
        k=policy.k,
        min_change=policy.change(metric),
        min_runs=policy.min_runs,
    )


def _stats(median: float | None, mad: float | None, n: int) -> Stats | None:
    return None if median is None or mad is None or not n else Stats(median=median, mad=mad, n=n)


def _metric(policy: Policy, metric: str, value: float, row: dict[str, Any] | None) -> MetricResult:
    r = rule(policy, metric)
    base = _stats(row["median"], row["mad"], row["n"]) if row else None
    prev = _stats(row["prev_median"], row["prev_mad"], row["prev_n"]) if row else None
    previous = row["previous"] if row else None
    return MetricResult(
        metric=metric,
        verdict=classify(r, value, base, previous, prev),
        current=value,
        baseline=base.median if base else None,
        band=r.band(base) if base else None,
        change=(value - base.median) / base.median if base and base.median else None,
        runs=base.n if base else 0,
        previous=previous,
    )


def _missing_reason(row: dict[str, Any]) -> str | None:
    if row["status"] == "cancelled":
        return "cancelled"
    reason, error = row["reason"], row["error"]
    if is_infrastructure(reason, error):
        return str(reason if (reason or "").startswith("infrastructure") else error)
    return None


def _curves(store: Store, policy: Policy) -> dict[str, CurveResult]:
    current: dict[str, list[tuple[float, float]]] = defaultdict(list)
    history: dict[str, dict[int, list[tuple[float, float]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for row in store.rows(_CURVES_SQL.replace("$window", str(policy.window))):
        if row["role"] == CURRENT:
            current[row["curve_key"]].append((row["x"], row["y"]))
        else:
            history[row["curve_key"]][row["rank"]].append((row["x"], row["y"]))
    ids = {
        row["curve_key"]: row
        for row in store.rows(
            "SELECT DISTINCT curve_key, config, pair, runner_label, image_family, fingerprint "
            "FROM records WHERE role = 'current' AND kind = 'point'"
        )
    }
    out = {}
    for key, points in current.items():
        past: list[Curve] = [sorted(history[key][rank]) for rank in sorted(history[key])]
        identity = {k: v for k, v in ids[key].items() if k != "curve_key"}
        judgement = judge(rule(policy, THROUGHPUT), policy.runs, sorted(points), past)
        out[key] = CurveResult(identity=identity, judgement=judgement)
    return out


def compare(
    store: Store, policy: Policy, *, source: str, current: str, expected: Expected | None
) -> Comparison:
    """Verdicts of the CURRENT records of `store` against its HISTORY records."""
    stats = {
        (row["point_key"], row["metric"]): row
        for row in store.rows(_STATS_SQL.replace("$runs", str(policy.runs)))
    }
    curves = _curves(store, policy)
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
        results = [
            _metric(policy, m, row[m], stats.get((row["point_key"], m)))
            for m in METRICS
            if row[m] is not None
            and (m != "acceptance_rate" or needs_acceptance(row["spec"], row["osl"]))
        ]
        curve = curves.get(row["curve_key"])
        results = _trade_offs(results, curve.judgement.verdict if curve else None)
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
        curves=tuple(curves.values()),
        gates=tuple(gates(store)),
        missing_cases=tuple(missing_cases(store, expected)),
        problems=tuple(str(p) for p in store.problems),
        reported=store.count(CURRENT),
        expected_points=len(expected.points) if expected else None,
    )


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
