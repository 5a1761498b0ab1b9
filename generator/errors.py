"""One error hierarchy; each error carries the exit code the command ends with."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable


@dataclass(frozen=True)
class Loc:
    """A place in a catalog file, printed as `file:line`."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


class SglangCIError(Exception):
    """An expected failure: printed as one line, exits with `return_code`."""

    return_code = 2

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc

    def __str__(self) -> str:
        return f"{self.loc}: {self.message}" if self.loc else self.message


class CatalogError(SglangCIError):
    """The catalog is not valid input (exit 2)."""


class SelectionError(SglangCIError):
    """A selector, preset, group or id names nothing (exit 2)."""


class LimitError(SglangCIError):
    """A generated file would exceed a GitHub limit (exit 2)."""


class CheckFailed(SglangCIError):
    """A check ran and found a problem: drift or lint errors (exit 1)."""

    return_code = 1


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` when a close name exists (case aside), else ``."""
    spelled: dict[str, str] = {}
    for choice in choices:
        spelled.setdefault(choice.lower(), choice)
    close = difflib.get_close_matches(word.lower(), list(spelled), n=1, cutoff=0.6)
    return f" (did you mean '{spelled[close[0]]}'?)" if close else ""
