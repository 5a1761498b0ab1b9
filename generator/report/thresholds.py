"""`results thresholds`: accuracy thresholds proposed from history, one per case, and a
`min_acceptance_rate` for MTP cases. A proposal to review and copy into the catalog by
hand; nothing is applied.

proposal = max(floor, Q1 - 1.5 x IQR - margin) over the valid runs of the case (Tukey's
lower fence, less a margin), when there are at least `min_runs` of them.
"""

from __future__ import annotations

from typing import TypedDict

from generator.core.logtext import md_text as text
from generator.report.markdown import number, table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.regression import ThresholdRule
    from generator.results.store import Store

METHOD = "max(floor, Q1 - 1.5 x IQR - margin)"

_SQL = """
SELECT case_id, any_value(metric) AS metric, count(DISTINCT run) AS runs,
  quantile_cont({col}, 0.25) AS q1, median({col}) AS median, quantile_cont({col}, 0.75) AS q3,
  min({col}) AS low, arg_max({current}, started_at) AS current
FROM records
WHERE role = 'history' AND kind = 'case' AND valid AND isfinite({col})
GROUP BY case_id ORDER BY case_id
"""


class Proposal(TypedDict):
    """A gate's proposal for one case, with the statistics it comes from."""

    metric: str
    runs: int
    q1: float
    median: float
    q3: float
    iqr: float
    lowest: float
    current: float | None
    proposed: float | None
    note: str | None


class CaseProposals(TypedDict):
    case: str
    threshold: Proposal
    min_acceptance_rate: Proposal | None


class ThresholdProposals(TypedDict):
    """The proposals (schema sglang-ci/thresholds/1)."""

    schema: str
    method: str
    floor: float
    margin: float
    min_runs: int
    cases: list[CaseProposals]


def _proposals(store: Store, rule: ThresholdRule, col: str, current: str) -> dict[str, Proposal]:
    out: dict[str, Proposal] = {}
    for row in store.rows(_SQL.format(col=col, current=current)):
        iqr = row["q3"] - row["q1"]
        enough = row["runs"] >= rule.min_runs
        proposed = max(rule.floor, row["q1"] - 1.5 * iqr - rule.margin) if enough else None
        out[row["case_id"]] = {
            "metric": row["metric"] if col == "score" else "acceptance_rate",
            "runs": row["runs"],
            "q1": row["q1"],
            "median": row["median"],
            "q3": row["q3"],
            "iqr": iqr,
            "lowest": row["low"],
            "current": row["current"],
            "proposed": None if proposed is None else round(proposed, 4),
            "note": None if enough else f"fewer than {rule.min_runs} runs: no proposal",
        }
    return out


def thresholds(store: Store, rule: ThresholdRule) -> ThresholdProposals:
    scores = _proposals(store, rule, "score", "threshold")
    rates = _proposals(store, rule, "acceptance_rate", "min_acceptance_rate")
    return {
        "schema": "sglang-ci/thresholds/1",
        "method": METHOD,
        "floor": rule.floor,
        "margin": rule.margin,
        "min_runs": rule.min_runs,
        "cases": [
            {"case": case, "threshold": found, "min_acceptance_rate": rates.get(case)}
            for case, found in scores.items()
        ],
    }


def markdown(data: ThresholdProposals) -> list[str]:
    lines = [
        "## Proposed accuracy thresholds (not applied)",
        "",
        (
            f"Method: {data['method']}, floor {data['floor']:g}, margin {data['margin']:g}, "
            f"at least {data['min_runs']} runs."
        ),
        "",
    ]
    rows = []
    for case in data["cases"]:
        gates = (
            ("threshold", case["threshold"]),
            ("min_acceptance_rate", case["min_acceptance_rate"]),
        )
        for what, p in gates:
            if p is None:
                continue
            rows.append(
                (
                    text(case["case"]),
                    what,
                    p["runs"],
                    number(p["q1"], 4),
                    number(p["median"], 4),
                    number(p["q3"], 4),
                    number(p["current"], 4),
                    number(p["proposed"], 4),
                    text(p["note"]) if p["note"] else "",
                )
            )
    headers = ("case", "gate", "runs", "Q1", "median", "Q3", "now", "proposed", "note")
    return lines + (table(headers, rows) if rows else ["No accuracy case in the history."])
