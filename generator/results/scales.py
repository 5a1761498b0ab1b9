"""Each metric on its own scale (docs/results.md, "Verdicts").

The rules work on a metric's *badness*: a number that grows when the metric gets worse,
so one rule serves every metric. Output throughput per GPU and the latencies are judged on
a log scale (a change is a ratio, and a latency's heavy upper tail is tamed by the log and
by robust estimates); the acceptance rate of MTP points, a fraction, on its own linear
scale. Relative thresholds (the catalog's minimum changes) are turned into badness units
at the reference level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from generator.catalog.regression import METRICS

LOG = "log"
LINEAR = "linear"
SCALES = {
    "output_throughput_per_gpu": LOG,
    "median_ttft_ms": LOG,
    "median_tpot_ms": LOG,
    "acceptance_rate": LINEAR,
}
# The smallest scale a robust estimate may give (a series of equal values has none):
# 0.1% on a log scale, a thousandth of the level on a linear one.
SCALE_FLOOR = 0.001


@dataclass(frozen=True, kw_only=True)
class Scale:
    metric: str

    @property
    def higher_is_better(self) -> bool:
        return METRICS[self.metric]

    @property
    def log(self) -> bool:
        return SCALES[self.metric] == LOG

    def badness(self, value: float | None) -> float | None:
        """`value` as badness (None when the scale cannot take it: not positive on a log
        scale, not finite)."""
        if value is None or not math.isfinite(value):
            return None
        if SCALES[self.metric] == LOG:
            if value <= 0:
                return None
            x = math.log(value)
        else:
            x = value
        return -x if METRICS[self.metric] else x

    def value(self, badness: float) -> float:
        x = -badness if self.higher_is_better else badness
        return math.exp(x) if self.log else x

    def relative(self, worse_by: float, reference: float) -> float:
        """The relative change of the metric's value when it is `worse_by` (badness units)
        worse than the `reference` badness: negative when the value went down."""
        before = self.value(reference)
        after = self.value(reference + worse_by)
        return (after - before) / abs(before) if before else 0.0

    def floor(self, reference: float) -> float:
        """The smallest robust scale at `reference`."""
        return SCALE_FLOOR if self.log else SCALE_FLOOR * max(abs(self.value(reference)), 1e-9)
