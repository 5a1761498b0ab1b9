"""The process groups the launcher starts, and how they are stopped.

Each process the launcher starts (the server, each client) leads a session and process
group of its own, so that stopping the group also stops whatever the process started.
SIGINT and SIGTERM raise `Cancelled` in the launcher; leaving the `Supervisor` stops every
group still running, on every exit path: SIGTERM, `grace_s` seconds, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, TracebackType

from generator.launch.console import log

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_STOP_POLL_S = 0.05
_Handler = Callable[[int, FrameType | None], object] | int | None


class Cancelled(BaseException):
    """SIGINT or SIGTERM reached the launcher; it exits with 128 + signum."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass(frozen=True)
class Child:
    """A started process; its pid is also its process-group id."""

    what: str
    proc: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        """False once the process has exited (a zombie is reaped here, not counted)."""
        return self.proc.poll() is None


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        return f"signal {signal.Signals(-returncode).name}"
    return f"status {returncode}"


def group_alive(pgid: int) -> bool:
    """True while a member of process group `pgid` is running. Zombies do not count:
    an orphaned one waits for PID 1 to reap it and must not stall a shutdown."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    for name in names:
        if not name.isdigit():
            continue
        try:
            stat = Path("/proc", name, "stat").read_bytes()
        except OSError:
            continue
        state, _ppid, pgrp = stat.rpartition(b")")[2].split()[:3]
        if int(pgrp) == pgid and state not in (b"Z", b"X"):
            return True
    return False


def _signal_group(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


class Supervisor:
    """Owns the groups of every started process; use it as a context manager.

    The first SIGINT or SIGTERM raises `Cancelled` where the launcher is (a wait, a sleep,
    an HTTP request), except while a process is being started, where it is raised as soon
    as the new group is recorded, and while groups are being stopped, where it is ignored.
    """

    def __init__(self, grace_s: float) -> None:
        self._grace_s = grace_s
        self._children: list[Child] = []
        self._signum: int | None = None
        self._owed = False
        self._defer = False
        self._previous: dict[int, _Handler] = {}

    def __enter__(self) -> Supervisor:
        for signum in SIGNALS:
            self._previous[signum] = signal.signal(signum, self._on_signal)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        pending: Cancelled | None = None
        try:
            self._defer = True
        except Cancelled as late:  # the first signal, in the instant before deferring
            pending = late
        cancel = pending or (exc if isinstance(exc, Cancelled) else None)
        if cancel is not None:
            log(f"received {cancel}: stopping")
        while self._children:
            self.stop(self._children[-1])
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        if pending is not None:
            raise pending

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        del frame
        if self._signum is not None:
            return
        self._signum = signum
        if self._defer:
            self._owed = True
        else:
            raise Cancelled(signum)

    def start(
        self,
        what: str,
        argv: Sequence[str],
        *,
        output: Path,
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> Child:
        """Start `argv` in a new session, stdout and stderr appended to `output`.
        `env` None: the launcher's own environment. OSError or ValueError when it
        cannot be started."""
        with output.open("ab") as out:
            self._defer = True
            try:
                proc = subprocess.Popen(
                    list(argv),
                    env=env,
                    cwd=cwd,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
                child = Child(what, proc)
                self._children.append(child)
            finally:
                self._defer = False
        if self._owed:
            self._owed = False
            raise Cancelled(self._signum or signal.SIGTERM)
        return child

    def run(
        self,
        what: str,
        argv: Sequence[str],
        *,
        output: Path,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
    ) -> int | None:
        """Start a client, wait for it (at most `timeout_s`), stop what it left in its
        group; its exit code, or None when it ran out of time (it is stopped)."""
        child = self.start(what, argv, output=output, cwd=cwd, env=env)
        try:
            returncode: int | None = child.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            log(f"{what} ran out of its {timeout_s:g}s: stopping it")
            returncode = None
        self.stop(child)
        return returncode

    def stop(self, child: Child) -> int:
        """Stop the child's group (SIGTERM, grace, SIGKILL), reap the child, forget it."""
        pgid = child.pid
        if group_alive(pgid):
            grace = f"{self._grace_s:g}s"
            log(f"stopping {child.what} (process group {pgid}): SIGTERM, {grace} grace")
            _signal_group(pgid, signal.SIGTERM)
            deadline = time.monotonic() + self._grace_s
            while group_alive(pgid):
                if time.monotonic() >= deadline:
                    log(f"{child.what} still running after {grace}: SIGKILL")
                    _signal_group(pgid, signal.SIGKILL)
                    break
                time.sleep(_STOP_POLL_S)
        returncode = child.proc.wait()
        if child in self._children:
            self._children.remove(child)
        return returncode
