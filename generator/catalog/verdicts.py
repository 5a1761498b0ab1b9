"""`regression.server` and `regression.change_points` of catalogs/benchmark.yaml, typed:
how the pooled statistic of a server's run is judged, and E-Divisive's significance
(docs/results.md, "Verdicts").

Schema: those properties of schemas/regression.schema.json (validated with the rest of the
section); the builders only add the defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True, kw_only=True)
class Pooled:
    """The rule of a server's pooled worsening (the median over its points), in robust
    standard deviations of that pooled series: a tabular CUSUM from a suspected run."""

    suspect: float = 1.2  # one run this far worse: suspected (sensitive: it only annotates)
    allowance: float = 1.0  # each run adds its worsening less this to the CUSUM
    # The CUSUM that confirms, on a second run or later, per metric; a metric left out is
    # pooled but never confirms alone (TPOT moves with throughput per GPU, which confirms
    # for both; a TPOT finding joins the server's event).
    limits: tuple[tuple[str, float], ...] = (
        ("output_throughput_per_gpu", 2.8),
        ("median_ttft_ms", 6.0),
        ("acceptance_rate", 3.0),
    )
    agree: float = 0.0  # the confirming run itself at least this far worse
    # The smallest config-wide change that counts: this share of the metric's min_change.
    share: float = 0.3
    # A suspicion its own runs have not confirmed in this many runs closes (0: never; why:
    # track.py).
    expire: int = 6

    def limit(self, metric: str) -> float | None:
        return dict(self.limits).get(metric)

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "limits": dict(self.limits)}


@dataclass(frozen=True, kw_only=True)
class ChangePoints:
    """E-Divisive on a server's pooled series: the slow worsenings."""

    p_value: float = 0.05  # significance of the permutation test of each change point
    permutations: int = 100
    min_z: float = 3.0  # the last segment's mean beyond its reference, in standard errors

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def build_pooled(raw: Mapping[str, Any] | None) -> Pooled:
    if raw is None:
        return Pooled()
    d = Pooled()
    limits = raw.get("limits")
    return Pooled(
        suspect=float(raw.get("suspect", d.suspect)),
        allowance=float(raw.get("allowance", d.allowance)),
        limits=d.limits if limits is None else tuple((str(m), float(v)) for m, v in limits.items()),
        agree=float(raw.get("agree", d.agree)),
        share=float(raw.get("share", d.share)),
        expire=int(raw.get("expire", d.expire)),
    )


def build_change_points(raw: Mapping[str, Any] | None) -> ChangePoints:
    if raw is None:
        return ChangePoints()
    d = ChangePoints()
    return ChangePoints(
        p_value=float(raw.get("p_value", d.p_value)),
        permutations=int(raw.get("permutations", d.permutations)),
        min_z=float(raw.get("min_z", d.min_z)),
    )
