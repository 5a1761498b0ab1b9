"""Cron strings as GitHub Actions accepts them, and their human description."""

from __future__ import annotations

import calendar
import functools
import re
from datetime import date, datetime, timedelta

_FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 6),
)
_ATOM = re.compile(r"^(\*|\d+(-\d+)?)(/\d+)?$")


def cron_problem(expr: str) -> str | None:
    """Why GitHub would refuse (or misread) `expr`, or None when it is fine."""
    if expr.strip().startswith("@"):
        return f"cron '{expr}': macros like @daily are not supported by GitHub; write five fields"
    fields = expr.split()
    if len(fields) != 5:
        return (
            f"cron '{expr}' has {len(fields)} fields; GitHub needs 5 "
            "(minute hour day month weekday)"
        )
    for text, (name, low, high) in zip(fields, _FIELDS, strict=True):
        for part in text.split(","):
            if not _ATOM.match(part):
                return f"cron '{expr}': {name} '{part}' is not a number, range, step or *"
            numbers = [int(n) for n in re.findall(r"\d+", part.split("/")[0])]
            if any(n < low or n > high for n in numbers):
                return f"cron '{expr}': {name} '{part}' is outside {low}-{high}"
            if "/" in part and int(part.split("/")[1]) == 0:
                return f"cron '{expr}': {name} step 0 is not allowed"
    minute = fields[0]
    if minute == "*" or (minute.startswith("*/") and int(minute[2:]) < 5):
        return f"cron '{expr}' runs more often than every 5 minutes, which GitHub does not allow"
    return None


@functools.cache
def describe(expr: str) -> str:
    """A human description ("At 02:00 PM, only on Monday and Wednesday") with UTC noted."""
    from cron_descriptor import get_description  # only the commands that describe need it

    return f"{get_description(expr)} (UTC)"


# 2001-01-01 was a Monday; 28 Gregorian years from it are exactly 1461 weeks.
_EPOCH = date(2001, 1, 1)
_WEEKS = 1461


def _values(text: str, low: int, high: int) -> set[int]:
    out: set[int] = set()
    for part in text.split(","):
        base, _, step = part.partition("/")
        if base == "*":
            start, end = low, high
        elif "-" in base:
            start, end = (int(n) for n in base.split("-"))
        else:
            start = int(base)
            end = high if step else start
        out.update(range(start, end + 1, int(step or 1)))
    return out


class _Fields:
    """A valid cron's fields as sets of the values they match."""

    def __init__(self, expr: str) -> None:
        minute, hour, day, month, weekday = expr.split()
        self.minutes = sorted(_values(minute, 0, 59))
        self.hours = sorted(_values(hour, 0, 23))
        self.days, self.months = _values(day, 1, 31), _values(month, 1, 12)
        self.weekdays = _values(weekday, 0, 6)
        # As in cron: when both day fields are restricted, a day matching either one runs.
        self.either = not day.startswith("*") and not weekday.startswith("*")

    def runs_on(self, d: date) -> bool:
        return self.runs_on_day(d.day, d.month, (d.weekday() + 1) % 7)

    def runs_on_day(self, day: int, month: int, weekday: int) -> bool:
        """`weekday` as cron numbers it: 0 is Sunday."""
        in_day, in_week = day in self.days, weekday in self.weekdays
        matched = (in_day or in_week) if self.either else (in_day and in_week)
        return month in self.months and matched


@functools.cache
def _calendar() -> dict[tuple[int, int, int], int]:
    """How many days of the averaged weeks (whole years from 1 January) fall on each
    (day, month, cron weekday)."""
    out: dict[tuple[int, int, int], int] = {}
    for year in range(_EPOCH.year, (_EPOCH + timedelta(days=_WEEKS * 7)).year):
        for month in range(1, 13):
            first, days = calendar.monthrange(year, month)  # first: Monday is 0
            for day in range(1, days + 1):
                key = (day, month, (first + day) % 7)
                out[key] = out.get(key, 0) + 1
    return out


@functools.cache
def runs_per_week(expr: str) -> float:
    """How often a (valid) cron fires in an average week."""
    fields = _Fields(expr)
    days = sum(n for key, n in _calendar().items() if fields.runs_on_day(*key))
    return days * len(fields.minutes) * len(fields.hours) / _WEEKS


def fire_times(expr: str, days: int) -> list[datetime]:
    """When a (valid) cron fires in the `days` days from Monday 2001-01-01 00:00."""
    fields = _Fields(expr)
    out = []
    for n in range(days):
        d = _EPOCH + timedelta(days=n)
        if fields.runs_on(d):
            out += [
                datetime(d.year, d.month, d.day, h, m) for h in fields.hours for m in fields.minutes
            ]
    return out
