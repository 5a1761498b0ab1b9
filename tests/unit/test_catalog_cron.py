"""Cron strings in GitHub's dialect: what is refused, and the runs of an average week."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from generator.catalog.cron import cron_problem, describe, fire_times, runs_per_week


@pytest.mark.parametrize(
    "expr",
    ["0 14 * * MON-FRI", "0 14 * * 1,3", "*/5 * * * *", "30 2 1 JAN-MAR *", "0 18 * * sun"],
)
def test_crons_github_runs_are_accepted(expr: str) -> None:
    assert cron_problem(expr) is None


@pytest.mark.parametrize(
    ("expr", "problem"),
    [
        (
            "0-59 * * * *",
            (
                "cron '0-59 * * * *' fires 1 minute(s) apart; GitHub runs a schedule at most "
                "every 5 minutes"
            ),
        ),
        (
            "*/4 * * * *",
            (
                "cron '*/4 * * * *' fires 4 minute(s) apart; GitHub runs a schedule at most "
                "every 5 minutes"
            ),
        ),
        (
            "0,58 0,23 * * *",
            (
                "cron '0,58 0,23 * * *' fires 2 minute(s) apart; GitHub runs a schedule at most "
                "every 5 minutes"
            ),
        ),
        (
            "@daily",
            "cron '@daily': macros like @daily are not supported by GitHub; write five fields",
        ),
        (
            "0 14 * * * *",
            "cron '0 14 * * * *' has 6 fields; GitHub needs 5 (minute hour day month weekday)",
        ),
        ("0 14 * * 7", "cron '0 14 * * 7': day of week '7' is outside 0-6"),
        (
            "0 14 * * 1L",
            "cron '0 14 * * 1L': day of week '1L' is not a number or a name GitHub knows",
        ),
        ("0 14 ? * 1", "cron '0 14 ? * 1': day of month '?' is not a number, range, step or *"),
        ("0 14 * * 5-1", "cron '0 14 * * 5-1': day of week range '5-1' goes down"),
        ("0 */0 * * *", "cron '0 */0 * * *': hour step 0 is not allowed"),
        ("0 0 31 2 *", "cron '0 0 31 2 *': Bad day-of-month"),
    ],
)
def test_crons_github_refuses_or_throttles_are_refused(expr: str, problem: str) -> None:
    assert cron_problem(expr) == problem


def days_matching(days_of_month: set[int], months: set[int], weekdays: set[int]) -> int:
    """Days from 2001-01-01 over 28 years (1461 weeks) that cron would run on, counted one
    by one (weekday 0 is Sunday; with both day fields restricted, either one matches)."""
    start = date(2001, 1, 1)
    all_days, all_weekdays = set(range(1, 32)), set(range(7))
    either = days_of_month != all_days and weekdays != all_weekdays
    count = 0
    for n in range(1461 * 7):
        d = start + timedelta(days=n)
        in_day, in_week = d.day in days_of_month, (d.weekday() + 1) % 7 in weekdays
        if d.month in months and ((in_day or in_week) if either else (in_day and in_week)):
            count += 1
    return count


ANY_DAY, ANY_MONTH, ANY_WEEKDAY = set(range(1, 32)), set(range(1, 13)), set(range(7))


@pytest.mark.parametrize(
    ("expr", "fires_per_day", "days"),
    [
        ("0 14 * * 1,3", 1, (ANY_DAY, ANY_MONTH, {1, 3})),
        ("0 18 * * *", 1, (ANY_DAY, ANY_MONTH, ANY_WEEKDAY)),
        ("*/5 * * * *", 288, (ANY_DAY, ANY_MONTH, ANY_WEEKDAY)),
        ("0 0 1 * *", 1, ({1}, ANY_MONTH, ANY_WEEKDAY)),
        ("0 0 29 2 *", 1, ({29}, {2}, ANY_WEEKDAY)),
        ("0 14 1 * 1", 1, ({1}, ANY_MONTH, {1})),
        ("0,30 9-10 * JAN-MAR MON", 4, (ANY_DAY, {1, 2, 3}, {1})),
    ],
)
def test_runs_per_week_is_the_day_by_day_count(
    expr: str, fires_per_day: int, days: tuple[set[int], set[int], set[int]]
) -> None:
    assert runs_per_week(expr) == pytest.approx(days_matching(*days) * fires_per_day / 1461)


def test_fire_times_start_on_the_monday_of_the_averaged_weeks() -> None:
    times = fire_times("0 14 * * 1,3", 8)
    assert [t.isoformat() for t in times] == [
        "2001-01-01T14:00:00",
        "2001-01-03T14:00:00",
        "2001-01-08T14:00:00",
    ]


def test_a_cron_is_described_in_words_in_utc() -> None:
    assert describe("0 14 * * 1,3") == "At 02:00 PM, only on Monday and Wednesday (UTC)"
