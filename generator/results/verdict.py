"""The verdict words of `results compare` and their order (docs/results.md, "Verdicts").

How a value becomes one of them is generator/verdicts: replay.py (a series' rule),
judge.py (a server's run, its curves and events) and compare.py (what the run misses).
"""

from __future__ import annotations

REGRESSION = "regression"
SUSPECTED = "suspected"
TRADE_OFF = "trade-off"
IMPROVED = "improved"
OK = "ok"
NEW = "new"
INSUFFICIENT = "insufficient-history"
MISSING = "missing"
INVALID = "invalid"
# Most severe first: a point or curve takes the first verdict any of its parts has.
SEVERITY = (MISSING, INVALID, REGRESSION, SUSPECTED, TRADE_OFF, INSUFFICIENT, NEW, IMPROVED, OK)


def worst(verdicts: list[str], default: str = OK) -> str:
    """The most severe of `verdicts` (SEVERITY order)."""
    return min(verdicts, key=SEVERITY.index) if verdicts else default
