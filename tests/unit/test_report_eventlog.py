"""`results events` as Markdown (generator/report/eventlog.py, templates/events.md.j2):
one row per event, its defining change with its interval, its issue."""

from __future__ import annotations

from generator.report.eventlog import SCHEMA, EventStory, markdown


def event() -> EventStory:
    return {"id": "ev-1", "config": "ds", "state": "confirmed", "outcome": "open",
            "happened": "open", "first_bad_run": "2026-03-06T14-00-00Z-1",
            "first_bad_at": "2026-03-06T14:00:00Z", "last_good_run": None, "confirmed_in": None,
            "confirmed_by": None, "runs": [], "points": ["1024x1024 c4"],
            "changes": {"output_throughput_per_gpu": {"change": -0.081, "low": -0.09,
                                                      "high": -0.072}},
            "differences": {}, "issue": {"number": 14, "url": None, "open": False},
            "triage": None}  # fmt: skip


def test_an_event_is_a_row_with_its_change_and_its_closed_issue() -> None:
    assert markdown({"schema": SCHEMA, "events": [event()]}) == [
        "## Events over the history: 1",
        "",
        (
            "| config | change [95%] | points | since | last good | state | what happened | issue "
            "| event |"
        ),
        "|---|---|---|---|---|---|---|---|---|",
        (
            "| ds | `output_throughput_per_gpu -8.1% [-9.0%, -7.2%]` | 1024x1024 c4 | "
            "`2026-03-06T14-00-00Z-1` (2026-03-06) | `-` | confirmed | open | #14 (closed) | "
            "`ev-1` |"
        ),
    ]


def test_what_an_event_does_not_know_is_a_dash() -> None:
    bare = event()
    bare.update({"changes": {}, "issue": None, "points": [], "state": None})
    row = markdown({"schema": SCHEMA, "events": [bare]})[-1]
    assert row.startswith("| ds | - | - | ")
    assert row.endswith("| - | open | - | `ev-1` |")


def test_no_event_is_one_line() -> None:
    assert markdown({"schema": SCHEMA, "events": []}) == ["## Events over the history: none"]
