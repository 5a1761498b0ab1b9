"""The bisection among the nightly images between the last good image and the current one."""

from __future__ import annotations

from dataclasses import dataclass

from generator.core.ab_verdict import CLEARED, CONFIRMED

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


@dataclass(frozen=True, kw_only=True)
class Bounds:
    """Where the first bad image lies among candidates 0..n-1 between the last good
    image (index -1) and the current one (index n): after `good`, at or before `bad`."""

    good: int
    bad: int
    stopped: bool  # an inconclusive step ended the bisection

    @property
    def exact(self) -> bool:
        return self.bad - self.good == 1


def bisect_bounds(count: int, steps: Iterable[tuple[int, str]]) -> Bounds:
    """The bounds after the bisection steps (candidate index, verdict against the last
    good image) made so far."""
    good, bad, stopped = -1, count, False
    for index, verdict in steps:
        if verdict == CONFIRMED:
            bad = min(bad, index)
        elif verdict == CLEARED:
            good = max(good, index)
        else:
            stopped = True
    return Bounds(good=good, bad=bad, stopped=stopped)


def bisect_next(count: int, steps: list[tuple[int, str]], max_steps: int) -> int | None:
    """The candidate to measure next, or None when the bisection is done: the first bad
    image is named, a step was inconclusive, or the steps are spent."""
    bounds = bisect_bounds(count, steps)
    if bounds.exact or bounds.stopped or len(steps) >= max_steps:
        return None
    return (bounds.good + bounds.bad) // 2
