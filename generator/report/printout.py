"""How a results command prints: JSON, or Markdown cut to size, on stdout and in full to
--out; each warning once."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import click

from generator.core.logtext import one_line
from generator.jsonio import dumps
from generator.report.markdown import DEFAULT_MAX_BYTES, fit
from generator.results.output import JSON, MARKDOWN, check_file, write_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class Output:
    """A command's name and its --json, --out FILE and --max-bytes."""

    what: str
    as_json: bool = False
    out: Path | None = None
    max_bytes: int = DEFAULT_MAX_BYTES

    def check(self) -> None:
        """Refuse an --out FILE before any work (output.check_file)."""
        if self.out is not None:
            check_file(self.out, JSON if self.as_json else MARKDOWN, self.what)

    def emit(self, data: object, lines: list[str]) -> None:
        """JSON, or Markdown cut to `max_bytes`, on stdout; the same in full to `out` (JSON
        with --json, else Markdown)."""
        if self.as_json:
            text = dumps(data)
            if self.out is not None:
                write_file(self.out, text, JSON, self.what)
            sys.stdout.write(text)
            return
        if self.out is not None:
            write_file(self.out, "\n".join(lines) + "\n", MARKDOWN, self.what)
        sys.stdout.write(fit(lines, self.max_bytes, str(self.out) if self.out else None))


def warn_problems(problems: list[Any]) -> None:
    for problem in problems:
        click.echo(f"warning: {one_line(str(problem))}", err=True)


class Warnings:
    """Warnings of one command, each printed once (a command that reads the history again
    without a broken compact file meets the same problems twice)."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, problems: list[Any]) -> None:
        for problem in problems:
            self.one(str(problem))

    def one(self, problem: str) -> None:
        if problem not in self.seen:
            self.seen.add(problem)
            warn_problems([problem])
