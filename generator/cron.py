"""Cron strings as GitHub Actions accepts them, and their human description."""

from __future__ import annotations

import re

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
    from cron_descriptor import get_description  # only the commands that describe need it

    return f"{get_description(expr)} (UTC)"
