"""The bisection (generator/core/bisection.py): which candidate next, where the first bad lies."""

from __future__ import annotations

from generator.core import ab_verdict, bisection


def test_bisection_halves_the_candidates_and_names_the_first_bad_one() -> None:
    # Seven nightlies between the last good and the current image; the fifth (index 4) is bad.
    steps: list[tuple[int, str]] = []
    while (mid := bisection.bisect_next(7, steps, max_steps=10)) is not None:
        steps.append((mid, ab_verdict.CONFIRMED if mid >= 4 else ab_verdict.CLEARED))
    assert [i for i, _ in steps] == [3, 5, 4]
    bounds = bisection.bisect_bounds(7, steps)
    assert (bounds.good, bounds.bad, bounds.exact) == (3, 4, True)


def test_bisection_stops_at_an_inconclusive_step_or_when_its_steps_are_spent() -> None:
    assert bisection.bisect_next(7, [(3, ab_verdict.INCONCLUSIVE)], max_steps=10) is None
    assert bisection.bisect_next(7, [(3, ab_verdict.CLEARED)], max_steps=1) is None
    bounds = bisection.bisect_bounds(7, [(3, ab_verdict.CLEARED)])
    assert (bounds.good, bounds.bad, bounds.exact) == (3, 7, False)
    assert bisection.bisect_next(0, [], max_steps=3) is None
