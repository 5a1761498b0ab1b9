"""Nightly tag patterns: a tag with `{version}` and `{date}` placeholders, matched against a
repository's whole tags, and the order that picks the newest nightly."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from generator.core.versions import version_key

# What each placeholder stands for in a tag. `{version}` is tag text without `-`, so the
# dashes of the pattern split a tag unambiguously; `{date}` is a calendar date as YYYYMMDD.
PLACEHOLDERS = {"version": "[A-Za-z0-9_.]+", "date": "[0-9]{8}"}
_SAMPLES = {"version": "v0", "date": "20000101"}
_PLACEHOLDER_RE = re.compile(r"\{([^{}]*)\}")


@dataclass(frozen=True, kw_only=True)
class Nightly:
    """A tag that matches a pattern, with the values of its placeholders."""

    tag: str
    version: str
    date: dt.date

    @property
    def key(self) -> tuple[dt.date, tuple[tuple[int, int, str], ...], str]:
        """Newest date first, then the highest version (the tag breaks a final tie)."""
        return (self.date, version_key(self.version), self.tag)


@dataclass(frozen=True, kw_only=True)
class TagPattern:
    """A tag pattern; `match` takes whole tags only."""

    template: str
    regex: re.Pattern[str]

    def match(self, tag: str) -> Nightly | None:
        found = self.regex.fullmatch(tag)
        if found is None:
            return None
        try:
            day = dt.date.fromisoformat(found["date"])  # YYYYMMDD, ISO 8601's basic form
        except ValueError:  # eight digits that are not a calendar date
            return None
        version = found["version"] if "version" in self.regex.groupindex else ""
        return Nightly(tag=tag, version=version, date=day)


def is_pattern(tag: str) -> bool:
    return "{" in tag or "}" in tag


def parse_pattern(template: str, tag_re: re.Pattern[str]) -> TagPattern:
    """The pattern of `template`, or ValueError saying what is wrong with it."""
    names = _PLACEHOLDER_RE.findall(template)
    for name in names:
        if name not in PLACEHOLDERS:
            msg = f"unknown placeholder '{{{name}}}'; a pattern has {{version}} and {{date}}"
            raise ValueError(msg)
    if names.count("date") != 1 or names.count("version") > 1:
        msg = "a pattern has {date} once and {version} at most once"
        raise ValueError(msg)
    pieces = _PLACEHOLDER_RE.split(template)  # literal, name, literal, name, literal
    literals = pieces[::2]
    if any("{" in text or "}" in text for text in literals):
        msg = "a brace outside a placeholder"
        raise ValueError(msg)
    if any(text == "" for text in literals[1:-1]):
        msg = "placeholders must be separated by literal text"
        raise ValueError(msg)
    if not tag_re.fullmatch(_PLACEHOLDER_RE.sub(lambda m: _SAMPLES[m[1]], template)):
        msg = "the pattern does not give a valid tag once filled in"
        raise ValueError(msg)
    regex = "".join(
        f"(?P<{piece}>{PLACEHOLDERS[piece]})" if odd else re.escape(piece)
        for odd, piece in ((i % 2 == 1, p) for i, p in enumerate(pieces))
    )
    return TagPattern(template=template, regex=re.compile(regex))
