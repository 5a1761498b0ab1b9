"""`results summarize`: the run summary for whoever is on call.

First the headline, the run's outcome in its colour, and one line per event (oncall.py),
then what else failed (failed gates, missing jobs and failed points, each a line), then
provenance (each image with its digest and
versions, the runners, a link to the run, expected / reported / missing counts), then the
tables, folded in `<details>`: the verdicts that are not `ok`, every accuracy case, every
config x point. The outcome comes from the verdicts of `results compare --json`
(`--verdicts`); without them the summary says the run was not judged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from generator.core.record_rules import error_line
from generator.report import oncall
from generator.results.expected import Expected, PointIdentity, counts, missing_jobs, missing_points
from generator.results.gates import GateDoc, gates
from generator.results.provenance import ProvenanceDoc, RunDoc, provenance, title
from generator.results.verdicts_json import VerdictsDoc, read

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from generator.confirm.outcome import Outcome
    from generator.confirm.tracked import Tracked
    from generator.results.store import Store

SCHEMA = "sglang-ci/summary/1"
POINT_COLUMNS = ("config", "display", "pair", "concurrency", "status", "valid", "reason",
                 "error", "output_throughput_per_gpu", "total_token_throughput_per_gpu",
                 "median_ttft_ms", "p99_ttft_ms", "median_tpot_ms", "p99_tpot_ms",
                 "median_itl_ms", "p99_itl_ms", "interactivity", "spec", "accept_length",
                 "acceptance_rate", "image", "file")  # fmt: skip
CASE_COLUMNS = ("case_id", "case_name", "id", "status", "metric", "score", "threshold", "passed",
                "spec", "accept_length", "acceptance_rate", "min_acceptance_rate", "error",
                "image", "file")  # fmt: skip


class ShownMetric(TypedDict):
    metric: str
    verdict: str
    change: float | None


class ShownPoint(TypedDict):
    config: str
    pair: str
    concurrency: int
    verdict: str
    reason: str | None
    metrics: list[ShownMetric]  # those not ok


class ShownCurve(TypedDict):
    config: str
    pair: str
    verdict: str
    change: float | None


class ShownVerdicts(TypedDict):
    """What the summary shows of the verdicts: every point and curve not plainly ok."""

    outcome: str
    reason: str | None
    causes: list[str]
    regressions: int
    gates: list[str]
    points: list[ShownPoint]
    curves: list[ShownCurve]


class MissingJob(TypedDict):
    job: str
    points: int
    reason: str


class Failure(TypedDict):
    kind: Literal["point", "case"]
    subject: str  # the point's config, the case's id
    file: str
    reason: str


class Tally(TypedDict):
    total: int
    status: dict[str, int]  # status -> how many


class PointTally(Tally):
    valid: int


class MissingPoint(PointIdentity):
    reason: str


class RunSummary(TypedDict):
    """The run summary (schema sglang-ci/summary/1); the documents of results/ and
    verdicts/ it holds keep their own types."""

    schema: str
    run: str | None
    title: str
    headline: str | None
    event_lines: list[str]
    compare: VerdictsDoc | None  # the verdicts (`results compare --json`)
    run_info: RunDoc
    started_at: str | None
    judged: bool
    verdicts: ShownVerdicts | None
    counts: dict[str, dict[str, int]]
    missing_jobs: list[MissingJob]
    missing_points: list[MissingPoint]
    provenance: ProvenanceDoc
    points: PointTally
    cases: Tally
    failures: list[Failure]
    gates: list[GateDoc]
    problems: list[str]
    point_rows: list[dict[str, Any]]  # Store.rows of POINT_COLUMNS
    case_rows: list[dict[str, Any]]  # Store.rows of CASE_COLUMNS


@dataclass(frozen=True, kw_only=True)
class Around:
    """What the headline and the event lines read beside the verdicts: the A/B outcomes,
    the tracking issues, the dashboard's URL, whether an A/B job comes after this one."""

    outcomes: Mapping[str, Outcome] = field(default_factory=dict)
    issues: Sequence[Tracked] = ()
    dashboard: str | None = None
    awaiting_ab: bool = False


def summarize(
    store: Store,
    *,
    expected: Expected | None = None,
    verdicts: VerdictsDoc | None = None,
    run: RunDoc | None = None,
    around: Around | None = None,
) -> RunSummary:
    """The CURRENT records of `store` as one JSON document; `verdicts`: the run's
    `compare --json`; `run`: provenance.run_info."""
    points = store.rows(
        f"SELECT {', '.join(POINT_COLUMNS)} FROM records WHERE role = 'current' "
        "AND kind = 'point' ORDER BY config, isl, osl, concurrency, id"
    )
    cases = store.rows(
        f"SELECT {', '.join(CASE_COLUMNS)} FROM records WHERE role = 'current' "
        "AND kind = 'case' ORDER BY case_id, id"
    )
    runs = store.rows("SELECT run, run_time FROM runs WHERE role = 'current'")
    name = runs[0]["run"] if runs else None
    info: RunDoc = run or {}
    images = {
        str(r["config"]): str(r["image"])
        for r in store.rows(
            "SELECT config, min(image_pinned) AS image FROM records WHERE role = 'current' "
            "AND kind = 'point' AND image_pinned IS NOT NULL GROUP BY config"
        )
    }
    around = around or Around()
    headline: str | None = None
    lines: list[str] = []
    if verdicts is not None:
        ctx = oncall.OncallContext(
            run=str(verdicts.get("current") or name or ""),
            title=title(info, name),
            dashboard=around.dashboard,
            images=images,
            awaiting_ab=around.awaiting_ab,
        )
        headline, lines = oncall.section(
            verdicts,
            ctx,
            outcomes=around.outcomes,
            issues=around.issues,
            extra=_extra(verdicts, store, expected),
        )
    return {
        "schema": SCHEMA,
        "run": name,
        "title": title(info, name),
        "headline": headline,
        "event_lines": lines,
        "compare": verdicts,
        "run_info": info,
        "started_at": runs[0]["run_time"].isoformat() if runs else None,
        "judged": verdicts is not None,
        "verdicts": _verdicts(verdicts),
        "counts": counts(store, expected),
        "missing_jobs": [
            {"job": job, "points": n, "reason": why}
            for job, n, why in missing_jobs(store, expected)
        ],
        "missing_points": [
            {**identity, "reason": why} for identity, why in missing_points(store, expected)
        ],
        "provenance": provenance(store),
        "points": {
            "total": len(points),
            "valid": sum(bool(p["valid"]) for p in points),
            "status": dict(Counter(p["status"] for p in points)),
        },
        "cases": {"total": len(cases), "status": dict(Counter(c["status"] for c in cases))},
        "failures": [
            {"kind": "point", "subject": p["config"], "file": p["file"], "reason": _why(p)}
            for p in points
            if not p["valid"]
        ]
        + [
            {"kind": "case", "subject": c["id"], "file": c["file"], "reason": _why(c)}
            for c in cases
            if c["status"] != "passed"
        ],
        "gates": [g.as_dict() for g in gates(store)],
        "problems": [str(p) for p in store.problems],
        "point_rows": points,
        "case_rows": cases,
    }


def _extra(verdicts: VerdictsDoc, store: Store, expected: Expected | None) -> list[str]:
    """The headline's other causes: failed gates, missing data."""
    out = []
    found = len(list(gates(store)))
    if found:
        out.append(f"{found} failed gate{'s' if found > 1 else ''}")
    if verdicts.get("reason"):  # a run without any record says so, the count aside
        out.append(str(verdicts["reason"]))
    elif isinstance(missing := verdicts.get("missing"), int) and missing:
        out.append(f"{missing} expected point(s) or case(s) missing")
    elif expected is not None and missing_points(store, expected):
        out.append(f"{len(missing_points(store, expected))} expected point(s) missing")
    return out


def _verdicts(data: VerdictsDoc | None) -> ShownVerdicts | None:
    """What the summary shows of the verdicts: the outcome and every point and curve that
    is not plainly ok."""
    if data is None:
        return None
    v = read(data)
    return {
        "outcome": v.outcome,
        "reason": v.reason,
        "causes": list(v.causes),
        "regressions": v.regressions,
        "gates": list(v.gates),
        "points": [
            {
                "config": p.config,
                "pair": p.pair,
                "concurrency": p.concurrency,
                "verdict": p.verdict,
                "reason": p.reason,
                "metrics": [
                    {"metric": m.metric, "verdict": m.verdict, "change": m.change}
                    for m in p.metrics
                    if m.verdict != "ok"
                ],
            }
            for p in v.points
            if p.verdict not in ("ok", "improved")
        ],
        "curves": [
            {"config": c.config, "pair": c.pair, "verdict": c.verdict, "change": c.change}
            for c in v.curves
            if c.verdict not in ("ok", "improved")
        ],
    }


def _why(row: Mapping[str, Any]) -> str:
    parts = [row.get("reason") or f"status {row['status']}"]
    line = error_line(row.get("error"))
    if line and line != parts[0]:
        parts.append(line)
    return ": ".join(parts)
