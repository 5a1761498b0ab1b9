"""Cron arithmetic: the runs of an average week, counted over the calendar's days."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from generator import cron


def runs_counted_day_by_day(expr: str) -> float:
    fields = cron._Fields(expr)
    days = sum(fields.runs_on(cron._EPOCH + timedelta(days=n)) for n in range(cron._WEEKS * 7))
    return days * len(fields.minutes) * len(fields.hours) / cron._WEEKS


def field(low: int, high: int) -> st.SearchStrategy[str]:
    number = st.integers(low, high).map(str)
    span = st.tuples(st.integers(low, high), st.integers(low, high)).map(
        lambda t: f"{min(t)}-{max(t)}"
    )
    step = st.tuples(st.sampled_from(["*", f"{low}-{high}"]), st.integers(1, 9)).map(
        lambda t: f"{t[0]}/{t[1]}"
    )
    part = number | span | step
    return st.just("*") | st.lists(part, min_size=1, max_size=3).map(",".join)


crons = st.tuples(
    st.integers(0, 59).map(str), field(0, 23), field(1, 31), field(1, 12), field(0, 6)
).map(" ".join)


def test_the_averaged_weeks_are_whole_years_from_the_first_of_january() -> None:
    end = cron._EPOCH + timedelta(days=cron._WEEKS * 7)
    assert (cron._EPOCH, end) == (date(cron._EPOCH.year, 1, 1), date(end.year, 1, 1))


@settings(max_examples=150, deadline=None, database=None)
@given(crons)
def test_runs_per_week_is_the_day_by_day_count(expr: str) -> None:
    assert cron.cron_problem(expr) is None
    assert cron.runs_per_week(expr) == runs_counted_day_by_day(expr)
