"""What an earlier night's verdicts and the night's A/B say of an event
(generator/results/carry.py): the same event keeps its id and first bad run, a
confirmation fails one run only, the A/B confirms or clears."""

from __future__ import annotations

from dataclasses import replace

from generator.catalog.regression import Policy
from generator.results.carry import AB, CLEARED, RERUN, Earlier, carried, confirmed_in, with_outcome
from generator.results.events import CONFIRMED, SUSPECTED, Event, event_id, events
from generator.results.judge import judge_server, rules
from tests.series_gen import KEY, server

CLEAN = 30


def step_event(runs: int) -> Event:
    """The one event of a config-wide 10% step from run 30, judged at run `runs` - 1."""
    shared = [1.0 if r < CLEAN else 0.9 for r in range(runs)]
    [found] = events(judge_server(server(runs, shared=shared), rules(Policy())))
    return found


def earlier(id_: str, state: str, first_bad: str | None, by: str | None = None) -> Earlier:
    return Earlier(
        id=id_,
        state=state,
        first_bad_run=first_bad,
        last_good_run="run-029",
        confirmed_by=by,
        confirmed_in="run-031" if state == CONFIRMED else None,
    )


def test_confirmed_in_names_the_first_bad_runs_an_earlier_night_confirmed() -> None:
    before = [
        earlier("ev-a", CONFIRMED, "run-030", AB),
        earlier("ev-b", SUSPECTED, "run-031"),
        earlier("ev-c", CONFIRMED, None),
        earlier("ev-d", CLEARED, "run-020"),
    ]
    assert confirmed_in(before) == frozenset({"run-030"})
    assert confirmed_in(None) == frozenset()


def test_without_earlier_verdicts_the_event_is_what_the_replay_says() -> None:
    found = step_event(CLEAN + 2)
    assert carried(found, None, found.stretch) == found


def test_an_event_confirmed_tonight_that_was_suspected_fails_this_run() -> None:
    found = step_event(CLEAN + 2)
    assert (found.state, found.first_bad_run) == (CONFIRMED, "run-030")
    after = carried(found, [earlier(found.id, SUSPECTED, "run-030")], found.stretch)
    assert (after.id, after.state, after.new_confirmation) == (found.id, CONFIRMED, True)


def test_an_event_an_earlier_night_confirmed_stays_confirmed_without_failing_again() -> None:
    found = step_event(CLEAN + 3)
    before = [earlier(found.id, CONFIRMED, "run-030", AB)]
    after = carried(found, before, found.stretch)
    assert (after.state, after.new_confirmation, after.confirmed_by) == (CONFIRMED, False, AB)
    assert after.confirmed_in == "run-031"
    unnamed = carried(found, [earlier(found.id, CONFIRMED, "run-030")], found.stretch)
    assert unnamed.confirmed_by == RERUN


def test_an_earlier_event_whose_first_bad_run_lies_in_the_worsening_lends_its_id() -> None:
    found = step_event(CLEAN + 3)
    before = [earlier("ev-earlier", SUSPECTED, "run-031")]
    after = carried(found, before, found.stretch)
    assert (after.id, after.first_bad_run) == ("ev-earlier", "run-031")
    assert after.new_confirmation is True  # confirmed now, suspected then


def test_the_night_s_ab_confirms_or_clears_a_suspected_event() -> None:
    suspected = replace(step_event(CLEAN + 2), state=SUSPECTED, new_confirmation=False)
    confirmed = with_outcome(suspected, "confirmed")
    assert (confirmed.state, confirmed.new_confirmation, confirmed.confirmed_by) == (
        CONFIRMED,
        True,
        AB,
    )
    assert confirmed.confirmed_in == suspected.current_run
    assert with_outcome(suspected, "cleared").state == CLEARED
    assert with_outcome(suspected, "inconclusive") == suspected
    assert with_outcome(suspected, None) == suspected
    # A cleared A/B does not undo a confirmation of the statistics.
    assert with_outcome(step_event(CLEAN + 2), "cleared").state == CONFIRMED
    assert suspected.id == event_id(KEY, "run-030")
