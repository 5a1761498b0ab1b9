"""The processes the launcher starts, and how they are stopped.

Each process the launcher starts (the server, each client) leads a session and process
group of its own, so that stopping the group also stops whatever the process started.
The launcher is also a child subreaper (Linux), so a descendant that leaves the group
(`setsid`) and outlives its parent becomes the launcher's child instead of init's: it is
still found in the launcher's process tree, stopped and reaped.

SIGINT, SIGTERM and SIGHUP raise `Cancelled` in the launcher; leaving the `Supervisor` stops every
process still running, on every exit path: SIGTERM, `grace_s` seconds, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import Self

from generator.core.console import log
from generator.launch.proc_table import Proc, descendants, group_running, processes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# SIGHUP too: a closed terminal or a dying parent session sends it, and its default
# action would kill the launcher and leave its server, scheduler and client running.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PR_SET_CHILD_SUBREAPER = 36
_STOP_POLL_S = 0.05
# How long to wait for SIGKILLed processes to be gone (a process in uninterruptible sleep
# can take a moment) before the launcher goes on.
_KILL_WAIT_S = 5.0
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
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(-returncode).name}"
        return f"signal {-returncode}"
    return f"status {returncode}"


def become_subreaper() -> bool:
    """Make orphaned descendants this process's children (Linux prctl); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _signal(pgids: Iterable[int], pids: Iterable[int], signum: int) -> None:
    for pgid in pgids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signum)


class Supervisor:
    """Owns every started process and its descendants; use it as a context manager.

    The first SIGINT or SIGTERM raises `Cancelled` where the launcher is (a wait, a sleep,
    an HTTP request), except inside `shielded()`: while a record or the summary is written,
    a process is started or processes are stopped, where it is raised as soon as that is
    done (and not at all in the final stop, which it cannot make any shorter). Later
    signals are ignored.
    """

    def __init__(self, grace_s: float) -> None:
        self._grace_s = grace_s
        self._children: list[Child] = []
        self._signum: int | None = None
        self._owed = False
        self._defer = False
        self._previous: dict[int, _Handler] = {}
        self._me = os.getpid()
        self.subreaper = False

    def __enter__(self) -> Self:
        self._me = os.getpid()
        self.subreaper = become_subreaper()
        if not self.subreaper:
            log("warning: not a child subreaper here: an orphan that left its group may escape")
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
        self._terminate("every process the launcher started", self._children, everything=True)
        for child in self._children:
            child.proc.wait()
        self._children.clear()
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

    @contextlib.contextmanager
    def shielded(self) -> Iterator[None]:
        """Hold a SIGINT or SIGTERM until the block is done (a file half written)."""
        outer = self._defer
        self._defer = True
        try:
            yield
        finally:
            self._defer = outer
            if self._owed and not outer:
                self._owed = False
                raise Cancelled(self._signum or signal.SIGTERM)

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
        with output.open("ab") as out, self.shielded():
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
        """Start a client, wait for it (at most `timeout_s`), stop what it left behind;
        its exit code, or None when it ran out of time (it is stopped)."""
        child = self.start(what, argv, output=output, cwd=cwd, env=env)
        try:
            returncode: int | None = child.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            log(f"{what} ran out of its {timeout_s:g}s: stopping it")
            returncode = None
        self.stop(child)
        return returncode

    def stop(self, child: Child, *, strays: bool = False) -> int:
        """Stop the child's group and every descendant of it (SIGTERM, grace, SIGKILL),
        reap the child, forget it. `strays`: also what an earlier process left behind,
        orphans the launcher adopted (the server's, once it has died)."""
        self._terminate(child.what, [child], strays=strays)
        returncode = child.proc.wait()
        if child in self._children:
            self._children.remove(child)
        return returncode

    def _targets(
        self,
        table: Mapping[int, Proc],
        mine: set[int],
        children: Sequence[Child],
        *,
        strays: bool,
        everything: bool,
    ) -> set[int]:
        """The running processes a stop is about, within the launcher's own tree `mine`."""
        if everything:
            return {pid for pid in mine if not table[pid].zombie}
        pgids = {c.pid for c in children}
        roots = set(pgids)
        if strays:
            tracked = {c.pid for c in self._children}
            roots |= {p for p in mine if table[p].ppid == self._me and p not in tracked}
        found = (roots | descendants(roots, table)) & mine
        found |= {p for p in mine if table[p].pgrp in pgids}
        return {p for p in found if not table[p].zombie}

    def _reap(self, table: Mapping[int, Proc]) -> None:
        """Reap the zombies this process adopted (never a child `subprocess` waits for)."""
        tracked = {c.pid for c in self._children}
        for proc in table.values():
            if proc.zombie and proc.ppid == self._me and proc.pid not in tracked:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(proc.pid, os.WNOHANG)

    def _terminate(
        self,
        what: str,
        children: Sequence[Child],
        *,
        strays: bool = False,
        everything: bool = False,
    ) -> None:
        """SIGTERM to the groups of `children` and to every process found below them (or,
        with `everything`, below the launcher), `grace_s` to go, then SIGKILL. Orphans
        adopted meanwhile are reaped; a signal to the launcher waits until the end."""
        with self.shielded():
            pgids = {c.pid for c in children}
            known: set[int] = set()
            grace = f"{self._grace_s:g}s"
            deadline: float | None = None
            killed = False
            while True:
                table = processes() or {}
                self._reap(table)
                mine = descendants([self._me], table)
                known = {p for p in known if p in mine and not table[p].zombie}
                known |= self._targets(table, mine, children, strays=strays, everything=everything)
                group = [g for g in pgids if group_running(g, table)]
                if not known and not group:
                    return
                now = time.monotonic()
                if deadline is None:
                    log(f"stopping {what}: SIGTERM, {grace} grace")
                    _signal(group, known, signal.SIGTERM)
                    deadline = now + self._grace_s
                elif not killed and now >= deadline:
                    log(f"{what} still running after {grace}: SIGKILL")
                    killed, deadline = True, now + _KILL_WAIT_S
                elif killed and now >= deadline:
                    log(f"warning: still running after SIGKILL: {sorted(known) or group}")
                    return
                if killed:
                    _signal(group, known, signal.SIGKILL)
                time.sleep(_STOP_POLL_S)
