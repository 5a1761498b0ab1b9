"""What an earlier night's verdicts and the night's A/B say of an event
(generator/results/carry.py): the same event keeps its id and first bad run, a
confirmation fails one run only, the A/B confirms or clears."""

from __future__ import annotations

import json
from dataclasses import replace

from generator.catalog.regression import Policy
from generator.results.carry import (
    AB,
    CLEARED,
    RERUN,
    Earlier,
    Memory,
    carried,
    confirmed_in,
    with_outcome,
)
from generator.results.carry import earlier as earlier_memory
from generator.results.events import CONFIRMED, SUSPECTED, Event, event_id, events
from generator.results.judge import judge_server, rules
from tests.series_gen import KEY, server

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

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


def test_a_step_that_met_an_open_suspicion_keeps_its_own_first_bad_run() -> None:
    # Runs 30-33 1.4% slower keep a suspicion open (first bad run 30); a 10% step at run
    # 34 is a change of its own: its worsening starts there, the four runs before it good.
    # The suspicion the night before does not lend it its id or first bad run.
    shared = [1.0] * 30 + [0.986] * 4 + [0.9] * 2
    [before] = events(judge_server(server(34, shared=shared[:34]), rules(Policy())))
    assert (before.first_bad_run, before.state) == ("run-030", SUSPECTED)
    [found] = events(judge_server(server(36, shared=shared), rules(Policy())))
    assert (found.first_bad_run, found.last_good_run, found.state) == (
        "run-034", "run-033", CONFIRMED,
    )  # fmt: skip
    night = [earlier(before.id, SUSPECTED, "run-030")]
    after = carried(found, night, found.stretch)
    assert (after.id, after.first_bad_run, after.new_confirmation) == (found.id, "run-034", True)


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


def test_a_manifest_keeps_the_servers_confirmed_changes_open_or_closed(tmp_path: Path) -> None:
    # The verdicts of run-040, judged as "run": an open event confirmed by the A/B, a
    # closed change kept, and another server's change.
    other = replace(KEY, config="other")
    verdicts = {
        "current": "run",
        "events": [
            {"id": "ev-a", "state": CONFIRMED, "server": KEY.as_dict(), "config": KEY.config,
             "first_bad_run": "run", "confirmed_by": AB, "confirmed_in": "run"},
            {"id": "ev-b", "state": SUSPECTED, "server": KEY.as_dict(), "config": KEY.config,
             "first_bad_run": "run-039"},
        ],
        "confirmed_changes": [
            {"id": "ev-c", "state": CONFIRMED, "server": KEY.as_dict(), "config": KEY.config,
             "first_bad_run": "run-020", "confirmed_by": RERUN, "confirmed_in": "run-021"},
            {"id": "ev-d", "state": CONFIRMED, "server": other.as_dict(), "config": "other",
             "first_bad_run": "run-030", "confirmed_by": AB, "confirmed_in": "run-030"},
        ],
    }  # fmt: skip
    manifest = tmp_path / "run-040" / "manifest.json"
    manifest.parent.mkdir()
    manifest.write_text(json.dumps({"name": "run-040", "verdicts": verdicts}), encoding="utf-8")
    m = earlier_memory(str(manifest), KEY)
    assert [(e.id, e.first_bad_run, e.confirmed_in) for e in m.events or ()] == [
        ("ev-a", "run-040", "run-040"),
        ("ev-b", "run-039", None),
    ]
    assert [(c.id, c.first_bad_run, c.confirmed_by, c.server) for c in m.changes] == [
        ("ev-c", "run-020", RERUN, KEY)
    ]
    assert m.known == frozenset({"run-020", "run-040"})
    assert earlier_memory(str(manifest), other).known == frozenset({"run-030"})
    # Kept while the first bad run is in the window; the open confirmed event joins them.
    kept = m.kept({"run-039", "run-040"})
    assert [(c.id, c.first_bad_run) for c in kept.changes] == [("ev-a", "run-040")]
    assert kept.known == frozenset({"run-040"})


def test_a_change_confirmed_earlier_and_closed_since_is_the_same_event_again() -> None:
    # Its onset opens again (same id): confirmed as before, not newly, not by this run.
    found = step_event(CLEAN + 2)
    change = replace(earlier(found.id, CONFIRMED, "run-030", AB), server=KEY)
    after = carried(found, [], found.stretch, (change,))
    assert (after.id, after.state, after.new_confirmation, after.confirmed_by) == (
        found.id,
        CONFIRMED,
        False,
        AB,
    )
    assert carried(found, [], found.stretch).new_confirmation is True


def test_a_manifest_without_verdicts_remembers_nothing(tmp_path: Path) -> None:
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"name": "run-040"}), encoding="utf-8")
    assert earlier_memory(str(manifest), KEY) == Memory(events=None)
    assert earlier_memory(None, KEY).known == frozenset()
    assert earlier_memory(str(tmp_path / "gone.json"), KEY) == Memory(events=None)
