"""Cron strings as GitHub Actions accepts them, and their human description."""

from __future__ import annotations

import functools
import re
from datetime import date, timedelta

from cron_descriptor import get_description

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


def describe(expr: str) -> str:
    """A human description ("At 02:00 PM, only on Monday and Wednesday") with UTC noted."""
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


@functools.cache
def runs_per_week(expr: str) -> float:
    """How often a (valid) cron fires in an average week. As in cron, when both day
    fields are restricted a day matching either one runs."""
    minute, hour, day, month, weekday = expr.split()
    per_day = len(_values(minute, 0, 59)) * len(_values(hour, 0, 23))
    days, months, weekdays = _values(day, 1, 31), _values(month, 1, 12), _values(weekday, 0, 6)
    either = not day.startswith("*") and not weekday.startswith("*")
    count = 0
    for n in range(_WEEKS * 7):
        d = _EPOCH + timedelta(days=n)
        in_day, in_week = d.day in days, (d.weekday() + 1) % 7 in weekdays
        if d.month in months and ((in_day or in_week) if either else (in_day and in_week)):
            count += 1
    return count * per_day / _WEEKS
