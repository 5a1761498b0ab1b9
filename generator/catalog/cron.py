"""Cron strings as GitHub Actions runs them.

GitHub's dialect is checked here (five fields of numbers, `*`, ranges, steps and lists;
JAN-DEC and SUN-SAT names; no `@` macros or Quartz extensions; day of week 0-6); what a
cron means, its fire times, comes from cronsim; its description from cron-descriptor.
GitHub runs a schedule at most every 5 minutes: the shortest interval between two real
fire times is checked against that.
"""

from __future__ import annotations

import itertools
import re
from datetime import datetime, timedelta

from cron_descriptor import get_description
from cronsim import CronSim, CronSimError

_NAMES = {
    3: ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"),
    4: ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"),
}
_FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 6),
)
_ITEM = re.compile(r"^(\*|[0-9A-Za-z]+(?:-[0-9A-Za-z]+)?)(?:/([0-9]+))?$")
SHORTEST_MINUTES = 5
# Fire times are counted from a Monday; 28 Gregorian years from it are exactly 1461 weeks.
# A naive calendar on purpose: GitHub reads a cron in UTC, which has no daylight saving.
_EPOCH = datetime(2001, 1, 1)  # noqa: DTZ001 (UTC wall-clock time, see above)
_WEEKS = 1461
_SAMPLE_FIRES = 2000


def _value(text: str, index: int, expr: str) -> int | str:
    """A field value as a number, or why it is not one this field takes."""
    name, low, high = _FIELDS[index]
    upper = text.upper()
    if upper in _NAMES.get(index, ()):
        return _NAMES[index].index(upper) + (1 if index == 3 else 0)
    if not text.isdigit():
        return f"cron '{expr}': {name} '{text}' is not a number or a name GitHub knows"
    number = int(text)
    if not low <= number <= high:
        return f"cron '{expr}': {name} '{text}' is outside {low}-{high}"
    return number


def _dialect_problem(expr: str) -> str | None:
    if expr.strip().startswith("@"):
        return f"cron '{expr}': macros like @daily are not supported by GitHub; write five fields"
    fields = expr.split()
    if len(fields) != 5:
        return (
            f"cron '{expr}' has {len(fields)} fields; GitHub needs 5 "
            "(minute hour day month weekday)"
        )
    for index, text in enumerate(fields):
        name = _FIELDS[index][0]
        for item in text.split(","):
            match = _ITEM.match(item)
            if match is None:
                return f"cron '{expr}': {name} '{item}' is not a number, range, step or *"
            if match[2] is not None and int(match[2]) == 0:
                return f"cron '{expr}': {name} step 0 is not allowed"
            if match[1] == "*":
                continue
            bounds = [_value(part, index, expr) for part in match[1].split("-")]
            for bound in bounds:
                if isinstance(bound, str):
                    return bound
            if len(bounds) == 2 and int(bounds[0]) > int(bounds[1]):
                return f"cron '{expr}': {name} range '{match[1]}' goes down"
    return None


def _fires(expr: str, start: datetime, end: datetime, limit: int | None = None) -> list[datetime]:
    """The fire times of a valid cron in [start, end), at most `limit` of them."""
    out: list[datetime] = []
    try:
        for t in CronSim(expr, start - timedelta(minutes=1)):
            if t >= end or (limit is not None and len(out) >= limit):
                break
            out.append(t)
    except OverflowError:  # no fire before the end of the calendar
        pass
    return out


def cron_problem(expr: str) -> str | None:
    """Why GitHub would refuse, never run, or throttle `expr`; None when it is fine."""
    problem = _dialect_problem(expr)
    if problem:
        return problem
    try:
        # Two days of fires show every gap of a daily pattern, its midnight included;
        # a sparser cron needs more: up to 30 years for a leap day.
        fires = _fires(expr, _EPOCH, _EPOCH + timedelta(days=2), _SAMPLE_FIRES)
        if len(fires) < 2:
            fires = _fires(expr, _EPOCH, _EPOCH + timedelta(days=366 * 30), 2)
    except CronSimError as e:
        return f"cron '{expr}': {e}"
    if not fires:
        return f"cron '{expr}' never fires"
    gaps = [(b - a).total_seconds() / 60 for a, b in itertools.pairwise(fires)]
    if gaps and min(gaps) < SHORTEST_MINUTES:
        return (
            f"cron '{expr}' fires {min(gaps):g} minute(s) apart; GitHub runs a schedule "
            f"at most every {SHORTEST_MINUTES} minutes"
        )
    return None


def describe(expr: str) -> str:
    """A human description ("At 02:00 PM, only on Monday and Wednesday") with UTC noted."""
    return f"{get_description(expr)} (UTC)"


def fire_times(expr: str, days: int) -> list[datetime]:
    """When a valid cron fires in the `days` days from Monday 2001-01-01 00:00."""
    return _fires(expr, _EPOCH, _EPOCH + timedelta(days=days))


def runs_per_week(expr: str) -> float:
    """How often a valid cron fires in an average week.

    With day of month and month unrestricted a cron repeats every week: its fires in one
    week are counted. Otherwise its days are counted over 28 years (1461 weeks), times
    its fires per day.
    """
    minute, hour, day, month, weekday = expr.split()
    if day == "*" and month == "*":
        return float(len(fire_times(expr, 7)))
    per_day = len(fire_times(f"{minute} {hour} * * *", 1))
    days = _fires(f"0 0 {day} {month} {weekday}", _EPOCH, _EPOCH + timedelta(weeks=_WEEKS))
    return len(days) * per_day / _WEEKS
