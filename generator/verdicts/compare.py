"""`results compare`: verdicts of a run's points and curves against the history, its
events, its gates, and the exit code (docs/results.md, "Verdicts").

series.py reads each server's series through one narrow table; generator/verdicts judges
them (every run of a server replayed against the noise the whole history measures, with
the A/B outcomes the history keeps); this module adds what the run misses and what fails
it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from generator.core import jsonread
from generator.core.record_rules import is_infrastructure
from generator.results.expected import Expected, missing_cases, missing_points
from generator.results.gates import gates
from generator.results.history import PointKey, ServerKey
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
from generator.verdicts.badness import THROUGHPUT
from generator.verdicts.comparison import Comparison, CurveOut, PointResult
from generator.verdicts.judge import judge

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.regression import Policy
    from generator.results.expected import PointIdentity
    from generator.results.verdicts_json import MetricDoc

LATENCY = ("median_ttft_ms", "median_tpot_ms")


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
        identity: PointIdentity = {
            "config": row["config"],
            "pair": row["pair"],
            "isl": row["isl"],
            "osl": row["osl"],
            "concurrency": row["concurrency"],
            "fingerprint": row["fingerprint"],
            "runner_label": row["runner_label"],
            "image_family": row["image_family"],
        }
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
        verdict = worst([m["verdict"] for m in results])
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
    return tuple(v or "" for v in (key.config, key.fingerprint, key.runner_label, key.image_family))


def _trade_offs(results: list[MetricDoc]) -> list[MetricDoc]:
    """A latency regression at a point whose throughput per GPU improved is a move along
    the point's curve: `trade-off`, not a failure."""
    throughput = next((m for m in results if m["metric"] == THROUGHPUT), None)
    if throughput is None or throughput["verdict"] != IMPROVED:
        return results
    return [
        {**m, "verdict": TRADE_OFF}
        if m["metric"] in LATENCY and m["verdict"] in (REGRESSION, SUSPECTED)
        else m
        for m in results
    ]
