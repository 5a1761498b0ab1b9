"""The sequential rule of one series (generator/results/track.py) on small seeded series:
a run alone is at most suspected, a step is confirmed on its second run, a one-run outlier
never is, confirmation needs a full baseline, the scale is not moved by a step."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest

from generator.results.track import Finding, Rule, Tracker, inflate, spread

POINT = Rule(
    suspect=2.7, agree=2.7, confirm=2.7, follow=2.7, consistent=2.5,
    min_runs=3, full=7, window=30,
)  # fmt: skip
POOLED = Rule(
    suspect=1.2, agree=0.0, confirm=math.inf, follow=math.inf, consistent=None,
    min_runs=3, full=7, window=30, allowance=1.0, limit=2.5,
)  # fmt: skip
SIGMA = 0.01


def noise(n: int = 40, seed: int = 3) -> list[float | None]:
    rng = random.Random(seed)
    return [rng.gauss(0, SIGMA) for _ in range(n)]


def track(values: list[float | None], rule: Rule = POINT) -> Tracker:
    return Tracker(rule, values, floor=lambda _level: 0.0, scale_floor=1e-6)


def where(found: Finding | None) -> tuple[int, tuple[int, ...], int | None, int | None]:
    """(onset, stretch, confirmed at, last good run) of a finding that must be open."""
    assert found is not None
    return found.onset, found.stretch, found.confirmed_at, found.last_good


@pytest.mark.parametrize("rule", [POINT, POOLED], ids=["point", "pooled"])
def test_one_bad_run_is_suspected_and_never_confirmed(rule: Rule) -> None:
    found = track([*noise(), 20 * SIGMA], rule).run()
    assert found is not None
    assert (found.onset, found.stretch, found.confirmed_at) == (40, (40,), None)


@pytest.mark.parametrize(
    "rule", [POINT, POOLED, replace(POOLED, expire=8)], ids=["point", "pooled", "expiring"]
)
def test_a_step_is_confirmed_on_its_second_run(rule: Rule) -> None:
    found = track([*noise(), 10 * SIGMA, 10 * SIGMA], rule).run()
    assert found is not None
    assert (found.onset, found.stretch, found.confirmed_at) == (40, (40, 41), 41)
    assert found.change == pytest.approx(10 * SIGMA, abs=2 * SIGMA)


def test_a_step_met_by_an_open_suspicion_starts_where_it_began() -> None:
    # Four runs 1.4 scales worse keep the sum open (1.44 after them), unconfirmed; an 8-sigma
    # step then adds 1.5 and passes the limit on its first run. Read from the suspicion's
    # onset, that run would confirm a change that began at run 40; the stretch splits at
    # the step (its runs far worse than the four before), so the step is judged from its
    # own first run: suspected there, confirmed by its second, the four runs good.
    rule = replace(POOLED, consistent=2.0)
    before = [*noise(), *[SIGMA] * 4]
    found = track(before, rule).run()
    assert found is not None
    assert (found.onset, found.confirmed_at, round(found.total, 2)) == (40, None, 1.44)
    assert where(track([*before, 8 * SIGMA], rule).run()) == (44, (44,), None, 43)
    found = track([*before, 8 * SIGMA, 8 * SIGMA], rule).run()
    assert where(found) == (44, (44, 45), 45, 43)
    assert found is not None
    assert found.reference.runs == tuple(range(14, 44))  # the last `window` runs before it
    # Without the split (no `consistent`), the same runs confirm from run 40 on the step's
    # first run.
    found = track([*before, 8 * SIGMA], POOLED).run()
    assert found is not None
    assert (found.onset, found.confirmed_at) == (40, 44)


def test_a_suspicion_unconfirmed_for_expire_runs_closes_and_its_runs_join_the_reference() -> None:
    # Runs alternately 1.6 and 0.5 standard deviations above the reference's level (-0.37):
    # each pair adds about 0.1 to the sum, which stays open and under the limit. Never
    # expiring, the suspicion of run 40 is still open twelve runs later; expiring after 8,
    # it closes on run 48, whose own suspicion is judged against a reference that holds
    # runs 40-47 (its level moved up), and the next run closes that one.
    level = -0.37 * SIGMA
    values = [*noise(), *[level + 1.6 * SIGMA, level + 0.5 * SIGMA] * 6]
    found = track(values, POOLED).run()
    assert found is not None
    assert (found.onset, len(found.stretch), found.confirmed_at) == (40, 12, None)
    expiring = replace(POOLED, expire=8)
    assert where(track(values[:48], expiring).run()) == (40, tuple(range(40, 48)), None, 39)
    found = track(values[:49], expiring).run()
    assert where(found) == (48, (48,), None, 47)
    assert found is not None
    assert found.reference.runs == tuple(range(18, 48))
    assert found.reference.level > level + 0.3 * SIGMA
    assert track(values, expiring).run() is None


def test_a_step_whose_first_run_was_its_worst_keeps_its_onset() -> None:
    # A step whose first run was its worst: the runs after it are not worse than it, so
    # the finding is confirmed on its second run from its first, and stays there.
    rule = replace(POOLED, consistent=2.0)
    found = track([*noise(), 4 * SIGMA, 2 * SIGMA, 2 * SIGMA], rule).run()
    assert found is not None
    assert (found.onset, found.stretch, found.confirmed_at) == (40, (40, 41, 42), 41)


def test_a_second_step_on_a_confirmed_change_is_a_change_of_its_own() -> None:
    # A 4-sigma step confirmed on its second run (run 41). A run 2 sigma worse than it is
    # its noise and joins it; a run 6 sigma worse is a second step: the first change
    # closes, and that run opens a change of its own, against the level before both,
    # confirmed by its second run.
    first = [*noise(), *[4 * SIGMA] * 3]
    found = track(first, POOLED).run()
    assert found is not None
    assert (found.onset, found.stretch, found.confirmed_at) == (40, (40, 41, 42), 41)
    found = track([*first, 6 * SIGMA], POOLED).run()
    assert found is not None
    assert (found.onset, found.stretch, found.confirmed_at) == (40, (40, 41, 42, 43), 41)
    assert where(track([*first, 10 * SIGMA], POOLED).run()) == (43, (43,), None, 39)
    found = track([*first, 10 * SIGMA, 10 * SIGMA], POOLED).run()
    assert where(found) == (43, (43, 44), 44, 39)
    assert found is not None
    assert found.change == pytest.approx(10 * SIGMA, abs=SIGMA)


def test_a_one_run_outlier_followed_by_a_normal_run_closes() -> None:
    assert track([*noise(), 15 * SIGMA, 0.0]).run() is None


def test_a_one_run_outlier_followed_by_a_noisy_run_is_not_confirmed() -> None:
    # The second run is 3.5 sigma worse on its own, but 11.5 sigma better than the first:
    # not the same level, so not a step.
    found = track([*noise(), 15 * SIGMA, 3.5 * SIGMA]).run()
    assert found is not None
    assert found.confirmed_at is None


def test_confirmation_needs_a_full_baseline() -> None:
    # Six values before the step: its first run is suspected against six, for that run
    # only; its second is a new suspicion against seven, confirmed by a third run.
    step = [*noise(6), 20 * SIGMA, 20 * SIGMA]
    found = track(step).run()
    assert found is not None
    assert (found.onset, found.confirmed_at) == (7, None)
    found = track([*step, 20 * SIGMA]).run()
    assert found is not None
    assert (found.onset, found.confirmed_at) == (7, 8)


def test_fewer_than_six_values_judge_nothing() -> None:
    # Five values give four differences: too few to know the noise (df < 3).
    assert track([*noise(5), 20 * SIGMA]).run() is None


def test_the_scale_is_not_moved_by_a_step_or_an_outlier() -> None:
    clean = [v for v in noise(60) if v is not None]
    stepped = clean[:30] + [v + 10 * SIGMA for v in clean[30:]]
    spiked = [*clean[:20], clean[20] + 15 * SIGMA, *clean[21:]]
    base, df = spread(clean)
    assert base == pytest.approx(SIGMA, rel=0.25)
    assert spread(stepped)[0] == pytest.approx(base, rel=0.1)
    assert spread(spiked)[0] == pytest.approx(base, rel=0.1)
    assert df == pytest.approx(0.6 * 59)


def test_the_replay_judges_each_run_with_what_came_before_it() -> None:
    # A CUSUM confirmed on night 42 stays confirmed on 42 when later nights are replayed.
    values = [*noise(), 1.5 * SIGMA, 2.5 * SIGMA, 2.5 * SIGMA, 2.5 * SIGMA]
    nights = [track(values[: n + 1], POOLED).run() for n in range(40, 44)]
    confirmed = [f.confirmed_at if f else None for f in nights]
    first = next(c for c in confirmed if c is not None)
    assert all(c == first for c in confirmed[confirmed.index(first) :])


def test_a_confirmed_finding_closes_after_two_runs_back() -> None:
    step = [*noise(), 10 * SIGMA, 10 * SIGMA, 10 * SIGMA]
    assert track([*step, 0.0]).run() is not None
    assert track([*step, 0.0, 0.0]).run() is None


def test_thresholds_rise_with_the_uncertainty_of_the_scale() -> None:
    assert inflate(2.0, math.inf) == 2.0
    assert 2.0 < inflate(2.0, 30) < inflate(2.0, 10)
    assert inflate(2.0, 2.0) == math.inf
    assert inflate(math.inf, 30) == math.inf


def test_a_finding_on_a_known_onset_is_confirmed_from_it_and_stays_open() -> None:
    # A 1.6 sigma step the CUSUM has not confirmed after two runs, then a run 2 sigma
    # better than normal: alone, the sum falls to zero and the finding closes; with its
    # onset confirmed by an A/B of the two images, it is confirmed from its first run and
    # stays open until two runs in a row are back within half its change.
    values = [*noise(), 1.6 * SIGMA, 1.6 * SIGMA, -2.0 * SIGMA]
    alone = Tracker(POOLED, values, floor=lambda _level: 0.0, scale_floor=1e-6)
    assert alone.run() is None
    known = Tracker(POOLED, values, floor=lambda _level: 0.0, scale_floor=1e-6, known={40})
    found = known.run()
    assert found is not None
    assert (found.onset, found.stretch, found.confirmed_at) == (40, (40, 41, 42), 40)
    back = [*values, -2.0 * SIGMA]
    assert Tracker(POOLED, back, floor=lambda _l: 0.0, scale_floor=1e-6, known={40}).run() is None


def test_a_known_onset_that_opens_nothing_confirms_nothing() -> None:
    # The A/B confirmed run 40, but the series is normal there: nothing opens, and a later
    # suspicion is the CUSUM's alone.
    values = [*noise(), 0.0, 3.0 * SIGMA]
    found = Tracker(POOLED, values, floor=lambda _l: 0.0, scale_floor=1e-6, known={40}).run()
    assert found is not None
    assert (found.onset, found.confirmed_at) == (41, None)


def test_the_runs_of_a_closed_known_change_leave_the_reference() -> None:
    # After the confirmed change closes, its runs are not part of a later run's reference.
    values = [*noise(), 1.6 * SIGMA, 1.6 * SIGMA, -2.0 * SIGMA, -2.0 * SIGMA, 0.0]
    t = Tracker(POOLED, values, floor=lambda _l: 0.0, scale_floor=1e-6, known={40})
    assert t.run() is None
    assert t.excluded == {40, 41, 42}
