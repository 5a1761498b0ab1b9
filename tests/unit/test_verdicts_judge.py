"""The rule on small series (generator/verdicts): what each kind of change gives, run by
run, with the history's noise (tests/series_gen.py: 1% noise, half of it shared)."""

from __future__ import annotations

from dataclasses import replace

from generator.catalog.regression import Policy
from generator.results.history import RunInfo, ServerSeries
from generator.verdicts.judge import judge
from generator.verdicts.model import event_id
from tests.series_gen import KEY, POINTS, server

POLICY = Policy()
THROUGHPUT = "output_throughput_per_gpu"
STEP = 12  # the run a change starts on: a reference of twelve clean runs before it


def upto(series: ServerSeries, run: int) -> ServerSeries:
    """The server as it was judged on `run` (its runs up to it)."""
    return ServerSeries(
        key=series.key,
        runs=series.runs[: run + 1],
        samples={p: v[: run + 1] for p, v in series.samples.items()},
        acceptance=series.acceptance,
    )


def states(
    series: ServerSeries, run: int, outcomes: dict[str, dict[str, str]] | None = None
) -> list[tuple[str, str, tuple[str, ...]]]:
    """(state, first bad run, points' concurrencies) of each event on `run`."""
    [j] = judge([upto(series, run)], POLICY, outcomes)
    return [
        (e.state, e.first_bad_run, tuple(str(p.concurrency) for p in e.points)) for e in j.events
    ]


def test_a_clean_history_confirms_nothing_and_suspects_its_one_dip() -> None:
    s = server(40)
    found = {r: states(s, r) for r in range(40)}
    assert [r for r, f in found.items() if any(st == "confirmed" for st, _, _ in f)] == []
    # This seed's two dips of the whole server (runs 13-14 and 36, about two standard
    # errors each): suspected while they last, cleared when the level is back.
    assert [r for r, f in found.items() if f] == [13, 14, 36]


def test_a_config_wide_step_is_suspected_on_its_run_and_confirmed_on_the_next() -> None:
    s = server(STEP + 4, shared=[1.0] * STEP + [0.9] * 4)
    everywhere = tuple(str(p.concurrency) for p in POINTS)
    assert states(s, STEP - 1) == []
    assert states(s, STEP) == [("suspected", "run-012", everywhere)]
    assert states(s, STEP + 1) == [("confirmed", "run-012", everywhere)]
    [j] = judge([upto(s, STEP + 1)], POLICY)
    [event] = j.events
    assert (event.id, event.last_good_run, event.new_confirmation) == (
        event_id(KEY, "run-012"), "run-011", True,
    )  # fmt: skip
    assert next(iter(event.changes)) == THROUGHPUT
    assert -0.115 < event.changes[THROUGHPUT].change < -0.085
    assert event.differences == {"image_digest": ("sha256:0011", "sha256:0012")}
    # The next run reports it again, no longer as a new confirmation; the points moved.
    [j] = judge([upto(s, STEP + 2)], POLICY)
    [again] = j.events
    assert (again.id, again.state, again.new_confirmation) == (event.id, "confirmed", False)
    marked = {
        m["verdict"] for results in j.points.values() for m in results if m["metric"] == THROUGHPUT
    }
    assert marked == {"regression"}


def test_a_one_run_outlier_at_one_point_is_never_confirmed() -> None:
    p = POINTS[2]
    s = server(STEP + 6, speed={(STEP, p): 0.85})
    assert states(s, STEP) == [("suspected", "run-012", ("16",))]
    later = [states(s, r) for r in range(STEP + 1, STEP + 6)]
    assert all(state != "confirmed" for found in later for state, _, _ in found)
    assert later[-1] == []


def test_a_step_at_one_point_is_an_event_of_that_point() -> None:
    p = POINTS[1]
    s = server(STEP + 3, speed={(r, p): 0.85 for r in range(STEP, STEP + 3)})
    assert states(s, STEP) == [("suspected", "run-012", ("8",))]
    [j] = judge([upto(s, STEP + 1)], POLICY)
    mine = [e for e in j.events if e.points == (p,)]
    assert [(e.id, e.state, e.first_bad_run) for e in mine] == [
        (event_id(KEY, "run-012", p), "confirmed", "run-012")
    ]
    # The seed's run 13 is also 2.6% slower everywhere: a suspicion of its own, not part
    # of the point's change.
    assert [(e.state, e.first_bad_run) for e in j.events if e not in mine] == [
        ("suspected", "run-013")
    ]


def test_a_drift_is_confirmed_before_it_reaches_five_percent() -> None:
    runs = STEP + 30
    shared = [1.0] * STEP + [1 - 0.002 * (r + 1) for r in range(30)]
    s = server(runs, shared=shared)
    first = next(r for r in range(runs) if any(st == "confirmed" for st, _, _ in states(s, r)))
    assert 1 - shared[first] < 0.05


def test_a_staircase_gives_an_event_per_step_once_the_first_has_settled() -> None:
    shared = [1.0] * STEP + [0.92] * 8 + [0.84] * 3
    s = server(len(shared), shared=shared)
    found = states(s, len(shared) - 2)
    assert [(st, first) for st, first, _ in found] == [
        ("confirmed", "run-012"),
        ("confirmed", "run-020"),
    ]


def test_what_differs_names_a_config_change_and_a_runner_change() -> None:
    s = server(
        STEP + 2, shared=[1.0] * STEP + [0.9] * 2, fingerprints={STEP: "fp-b", STEP + 1: "fp-b"}
    )
    runs = list(s.runs)
    runs[STEP] = replace(
        runs[STEP], provenance=(*runs[STEP].provenance, ("runner_name", "mi355-7"))
    )
    s = replace(s, runs=tuple(runs))
    [j] = judge([s], POLICY)
    [event] = j.events
    assert set(event.differences) == {"fingerprint", "image_digest", "runner_name"}


def test_a_new_point_is_new_and_a_short_history_is_not_judged() -> None:
    s = server(STEP + 1)
    extra = replace(POINTS[0], concurrency=128)
    samples = dict(s.samples)
    samples[extra] = (None,) * STEP + (s.samples[POINTS[0]][STEP],)
    [j] = judge([replace(s, samples=samples)], POLICY)
    assert {m["verdict"] for m in j.points[extra]} == {"new"}
    [short] = judge([upto(s, 2)], POLICY)
    assert short.events == ()
    assert {m["verdict"] for results in short.points.values() for m in results} == {
        "insufficient-history"
    }


def test_an_ab_outcome_in_the_history_confirms_or_clears_the_suspicion_it_was_run_for() -> None:
    s = server(STEP + 3, shared=[1.0] * STEP + [0.9] * 3)
    night = {"run-012": {event_id(KEY, "run-012"): "confirmed"}}
    assert states(s, STEP, night) == [
        ("confirmed", "run-012", tuple(str(p.concurrency) for p in POINTS))
    ]
    cleared = {"run-012": {event_id(KEY, "run-012"): "cleared"}}
    [j] = judge([upto(s, STEP)], POLICY, cleared)
    assert [e.state for e in j.events] == ["cleared"]  # reported on its night, once
    # Its runs stay out of the reference: the change, still there, opens a new finding.
    assert states(s, STEP + 1, cleared)[0][:2] == ("suspected", "run-013")


def test_verdicts_are_a_function_of_the_data_alone() -> None:
    s = server(STEP + 4, shared=[1.0] * STEP + [0.9] * 4)
    other = server(STEP + 4, seed=7, key=replace(KEY, config="qwen"))
    first = judge([s, other], POLICY)
    again = judge([other, s], POLICY)
    assert {j.series.key: j.events for j in first} == {j.series.key: j.events for j in again}


def test_the_history_s_other_servers_lend_their_noise_to_a_young_server() -> None:
    young = server(5, shared=[1.0] * 4 + [0.9], key=replace(KEY, config="new"))
    assert states(young, 4) == [("suspected", "run-004", tuple(str(p.concurrency) for p in POINTS))]
    assert isinstance(young.runs[0], RunInfo)
