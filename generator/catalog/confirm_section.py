"""`regression.confirm` of catalogs/benchmark.yaml, typed: what a scheduled run may spend
to confirm a suspected event on the runner (an interleaved A/B of the last good and the
current image), whether it bisects between them, and whether it keeps tracking issues.

Schema: the `confirm` property of schemas/regression.schema.json (validated with the rest
of the section); `build_confirm` only adds the defaults. docs/confirmation.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


class ConfirmDoc(TypedDict):
    """`regression.confirm` with its defaults, as the verdicts JSON's policy shows it."""

    enabled: bool
    repeats: int
    max_jobs: int
    max_points: int
    level: float
    bisect: bool
    max_bisect_steps: int
    issues: bool
    issue_label: str


@dataclass(frozen=True, kw_only=True)
class Confirm:
    enabled: bool = False  # new `suspected` events of a scheduled run get A/B jobs
    repeats: int = 3  # K: each image measured K times at each point, interleaved
    max_jobs: int = 2  # A/B jobs per run at most (one per affected server)
    max_points: int = 4  # affected points measured per job at most, largest changes first
    level: float = 0.95  # the t interval's confidence level
    bisect: bool = True  # name the first bad nightly between last good and current
    max_bisect_steps: int = 3  # more A/Bs per job at most (log2 of the candidates)
    issues: bool = False  # one tracking issue per confirmed event (gh, issues: write)
    issue_label: str = "sglang-ci-regression"

    @property
    def steps(self) -> int:
        """A/B measurements per job at most: the confirmation and the bisection."""
        return 1 + (self.max_bisect_steps if self.bisect else 0)

    def as_dict(self) -> ConfirmDoc:
        return {
            "enabled": self.enabled,
            "repeats": self.repeats,
            "max_jobs": self.max_jobs,
            "max_points": self.max_points,
            "level": self.level,
            "bisect": self.bisect,
            "max_bisect_steps": self.max_bisect_steps,
            "issues": self.issues,
            "issue_label": self.issue_label,
        }


def build_confirm(raw: Mapping[str, Any] | None) -> Confirm:
    """The Confirm of a schema-valid `regression.confirm` mapping (None: the defaults)."""
    if raw is None:
        return Confirm()
    defaults = Confirm()
    return Confirm(
        enabled=bool(raw.get("enabled", defaults.enabled)),
        repeats=int(raw.get("repeats", defaults.repeats)),
        max_jobs=int(raw.get("max_jobs", defaults.max_jobs)),
        max_points=int(raw.get("max_points", defaults.max_points)),
        level=float(raw.get("level", defaults.level)),
        bisect=bool(raw.get("bisect", defaults.bisect)),
        max_bisect_steps=int(raw.get("max_bisect_steps", defaults.max_bisect_steps)),
        issues=bool(raw.get("issues", defaults.issues)),
        issue_label=str(raw.get("issue_label", defaults.issue_label)),
    )
