"""The launcher's exit statuses and its one error type.

Every expected way a launch stops early is a `LaunchError` whose `return_code` is the
status the launcher exits with, caught once by the entry point (main.py, container.py,
confirm_job.py), which prints its message as one line. Anything else is a bug: one line,
exit 3. A signal ends the launcher with 128 + its number (process.Cancelled).
"""

from __future__ import annotations

import traceback

from generator.core.console import say
from generator.core.logtext import one_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

OK = 0
FAILED = 1  # a point failed or was invalid, a gate did not pass
INFRASTRUCTURE = 2  # bad input, or the machine, the server or the results directory failed
BUG = 3  # the launcher itself failed


class LaunchError(Exception):
    """An expected failure: the message is one line; the launcher exits `return_code`."""

    return_code = INFRASTRUCTURE


class InputError(LaunchError):
    """A knob, or a job or case file that does not follow the contract, refused before
    anything starts."""


class Infrastructure(LaunchError):
    """The job cannot run here: its GPUs, its models, its results directory."""


class NotReady(LaunchError):
    """The server did not become ready; the message says why. `infrastructure`: the
    machine is at fault (the port is taken), not the server."""

    def __init__(self, reason: str, *, infrastructure: bool = False) -> None:
        super().__init__(reason)
        self.infrastructure = infrastructure


TRACEBACK_FILE = "launcher-traceback.txt"


def error(program: str, exc: LaunchError) -> int:
    """An expected failure as one line on standard error (framed when the runner could read
    a workflow command in it); its exit status."""
    say(f"{program}: error: {one_line(str(exc))}", stderr=True)
    return exc.return_code


def bug(program: str, exc: Exception, log_dir: Path | None) -> int:
    """A bug as one line on standard error, its traceback kept in `log_dir` when it can be
    written there; BUG."""
    where = ""
    if log_dir is not None:
        path = log_dir / TRACEBACK_FILE
        try:
            log_dir.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
            where = f"; the traceback is in {path}"
        except OSError:
            pass
    say(
        f"{program}: unexpected error (a bug in the launcher): {type(exc).__name__}: "
        f"{one_line(str(exc))}{where}",
        stderr=True,
    )
    return BUG
