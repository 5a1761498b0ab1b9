"""The verdict of one value against its baseline: pure arithmetic, no I/O.

A baseline is the median and MAD of a metric over the last N valid runs of a point. The
band is max(k x 1.4826 x MAD, min_change x |median|) (1.4826 x MAD estimates a standard
deviation). A value worse than the median by more than the band crosses it; a crossing is
a `regression` when it is beyond twice the band or when the previous run crossed its own
band (its own last N valid runs before it) in the same direction, else `suspected`.
"""

from __future__ import annotations

from dataclasses import dataclass

MAD_TO_SIGMA = 1.4826

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


@dataclass(frozen=True, kw_only=True)
class Stats:
    """A baseline: median and MAD of n values."""

    median: float
    mad: float
    n: int


@dataclass(frozen=True, kw_only=True)
class Rule:
    """How one metric is judged."""

    higher_is_better: bool
    k: float
    min_change: float
    min_runs: int

    def band(self, stats: Stats) -> float:
        return max(self.k * MAD_TO_SIGMA * stats.mad, self.min_change * abs(stats.median))

    def worse_by(self, value: float, stats: Stats) -> float:
        """How much worse than the median `value` is (negative: better)."""
        return stats.median - value if self.higher_is_better else value - stats.median

    def crosses(self, value: float | None, stats: Stats | None) -> bool:
        """`value` is worse than a judgeable baseline by more than its band."""
        if value is None or stats is None or stats.n < self.min_runs:
            return False
        return self.worse_by(value, stats) > self.band(stats)


def classify(
    rule: Rule,
    current: float,
    baseline: Stats | None,
    previous: float | None = None,
    previous_baseline: Stats | None = None,
) -> str:
    """The verdict of `current` against `baseline`; `previous` is the newest value in the
    baseline and `previous_baseline` the baseline that value had."""
    if baseline is None or baseline.n == 0:
        return NEW
    if baseline.n < rule.min_runs:
        return INSUFFICIENT
    band = rule.band(baseline)
    worse = rule.worse_by(current, baseline)
    if worse > band:
        if worse > 2 * band or rule.crosses(previous, previous_baseline):
            return REGRESSION
        return SUSPECTED
    if -worse > band:
        return IMPROVED
    return OK


def worst(verdicts: list[str], default: str = OK) -> str:
    """The most severe of `verdicts` (SEVERITY order)."""
    return min(verdicts, key=SEVERITY.index) if verdicts else default
