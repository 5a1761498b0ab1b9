"""One SGLang server: started as `commands.server_argv` with the entry's env added to the
launcher's own, polled until ready, restarted, flushed between points and stopped."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shlex
import time
import urllib.error
import urllib.request
from pathlib import Path

from generator.core import commands
from generator.core.console import log, say
from generator.core.exits import NotReady
from generator.core.record_rules import finite
from generator.launch import proc_table, sockets
from generator.launch.log_tail import echo_tail, tail
from generator.launch.process import Child, Supervisor, describe_exit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import ServerEntry
    from generator.launch.knobs import Knobs

LOG_TAIL_LINES = 200
# The lines of a server that never became ready kept in its points' records as the reason.
REASON_TAIL_LINES = 20
PORT_PROBE_TIMEOUT_S = 2.0
READY_PROBE_TIMEOUT_S = 5.0
HEALTH_TIMEOUT_S = 10.0
MAX_BODY_BYTES = 4 * 1024 * 1024  # an info answer is a few KiB
FLUSH_TIMEOUT_S = 120.0
# Loopback only: never through a proxy from http_proxy and friends.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http_json(url: str, *, timeout_s: float) -> object | None:
    """The JSON `url` answers a GET with, or None."""
    try:
        with _OPENER.open(urllib.request.Request(url), timeout=timeout_s) as response:
            data: object = json.loads(response.read(MAX_BODY_BYTES).decode("utf-8"))
            return data
    except (OSError, http.client.HTTPException, ValueError, RecursionError):
        return None


def http_status(url: str, *, method: str, timeout_s: float) -> int | None:
    """The HTTP status `url` answers with, or None when nothing answers over HTTP."""
    data = b"" if method == "POST" else None
    request = urllib.request.Request(url, data=data, method=method)
    try:
        with _OPENER.open(request, timeout=timeout_s) as response:
            status: int = response.status
            return status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (OSError, http.client.HTTPException, ValueError):
        return None


class ServerProcess:
    def __init__(
        self,
        entry: ServerEntry,
        knobs: Knobs,
        supervisor: Supervisor,
        release: str | None = None,
    ) -> None:
        """`release`: the SGLang the image carries (the version probe), which names the
        server's flags (commands.spelled); None: as the entry writes them."""
        self._knobs = knobs
        self._supervisor = supervisor
        where = knobs.where
        self.argv = commands.server_argv(entry, where, release)
        self.env_added = dict(entry["env"])
        self.base_url = commands.base_url(where)
        self.model = commands.models(entry, where)[entry["model_path"]]
        self.log_path = Path(commands.server_log(entry, where))
        self.starts = 0
        self.start_s: float | None = None  # launch to readiness, for the current process
        self._child: Child | None = None
        with contextlib.suppress(OSError):  # a log that cannot be written fails the start
            self.log_path.write_bytes(b"")

    def print_command(self) -> None:
        """The env additions as K=V lines, then the command, all shell-quoted."""
        log("server environment additions and command:")
        for key, value in self.env_added.items():
            say(f"{key}={shlex.quote(value)}")
        say(shlex.join(self.argv))

    def alive(self) -> bool:
        return self._child is not None and self._child.alive()

    def launch(self) -> None:
        """Start the server and wait until it is ready, or stop it and raise NotReady."""
        self.start_s = None
        probe = self.base_url + commands.READY_PATHS[0]
        if http_status(probe, method="GET", timeout_s=PORT_PROBE_TIMEOUT_S) is not None:
            reason = f"port {self._knobs.port} already answers HTTP before the server was started"
            log(reason)
            raise NotReady(reason, infrastructure=True)
        started = time.monotonic()
        self.starts += 1
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        try:
            with self.log_path.open("a", encoding="utf-8") as out:
                out.write(f"===== server start #{self.starts} at {stamp} =====\n")
            self._child = self._supervisor.start(
                "sglang server",
                self.argv,
                output=self.log_path,
                env={**os.environ, **self.env_added},
            )
            log(f"server start #{self.starts}: pid {self._child.pid}, log {self.log_path}")
            self._wait_ready(self._child, started)
        except (NotReady, OSError, ValueError) as exc:
            reason = str(exc) if isinstance(exc, NotReady) else f"cannot start the server: {exc}"
            infrastructure = isinstance(exc, NotReady) and exc.infrastructure
            log(f"server failed to become ready: {reason}")
            echo_tail(self.log_path, LOG_TAIL_LINES, banner="server log")
            self.stop()
            # Why it failed is in its last lines (`ambiguous option: --cuda-graph-bs ...`):
            # they go into the records and the run summary, not only the job's log.
            detail = tail(self.log_path, REASON_TAIL_LINES)
            reason = f"{reason}; its last log lines:\n{detail}" if detail else reason
            raise NotReady(reason, infrastructure=infrastructure) from None
        self.start_s = round(time.monotonic() - started, 3)
        log(f"server ready after {self.start_s:.3f}s")

    def _wait_ready(self, child: Child, started: float) -> None:
        deadline = started + self._knobs.ready_timeout_s
        stage = 0
        while True:
            returncode = child.proc.poll()
            if returncode is not None:
                status = describe_exit(returncode)
                msg = f"server process exited with {status} before becoming ready"
                raise NotReady(msg)
            while stage < len(commands.READY_PATHS) and self._ready_at(stage):
                stage += 1
            if stage == len(commands.READY_PATHS):
                self._confirm_ours(child)
                return
            if time.monotonic() >= deadline:
                msg = (
                    f"server not ready after READY_TIMEOUT_S={self._knobs.ready_timeout_s:g}s"
                    f" (last stage: {commands.READY_PATHS[stage]})"
                )
                raise NotReady(msg)
            time.sleep(self._knobs.ready_poll_s)

    def _confirm_ours(self, child: Child) -> None:
        """The server answering on the port serves our model and listens from our
        server's process tree; NotReady (infrastructure) when another server took the
        port after the check before the start."""
        port = self._knobs.port
        served = self._served_model()
        if served is None:
            paths = " or ".join(commands.MODEL_INFO_PATHS)
            msg = f"the server on port {port} reports no model_path at {paths}"
            raise NotReady(msg)
        if served != self.model:
            msg = (
                f"port {port} is served by a server of model {served!r}, not ours ({self.model!r}):"
                " another server took the port"
            )
            raise NotReady(msg, infrastructure=True)
        inodes = sockets.listening(port)
        if inodes is None:
            log("warning: /proc/net/tcp cannot be read: the listener on the port is not checked")
            return
        table = proc_table.processes() or {}
        ours = {child.pid, *proc_table.descendants([child.pid], table)}
        ours |= {p.pid for p in table.values() if p.pgrp == child.pid}
        held = sockets.holders(inodes, ours)
        foreign = inodes - held.keys()
        if held and not foreign:
            return
        others = sockets.holders(foreign)
        who = ", ".join(f"pid {pid} ({sockets.command(pid)})" for pid in sorted(others.values()))
        msg = (
            f"port {port} is listened on by {who or 'a process this launcher cannot see'},"
            f" not by the server this launcher started (pid {child.pid})"
        )
        raise NotReady(msg, infrastructure=True)

    def _served_model(self) -> str | None:
        for path in commands.MODEL_INFO_PATHS:
            info = http_json(self.base_url + path, timeout_s=READY_PROBE_TIMEOUT_S)
            if isinstance(info, dict) and isinstance(info.get("model_path"), str):
                served: str = info["model_path"]
                return served
        return None

    def healthy(self) -> bool:
        """The process runs and /health answers 200."""
        url = self.base_url + commands.READY_PATHS[0]
        return self.alive() and http_status(url, method="GET", timeout_s=HEALTH_TIMEOUT_S) == 200

    def _ready_at(self, stage: int) -> bool:
        url = self.base_url + commands.READY_PATHS[stage]
        return http_status(url, method="GET", timeout_s=READY_PROBE_TIMEOUT_S) == 200

    def flush(self) -> None:
        """POST the flush path; a failure is only a warning."""
        url = self.base_url + commands.FLUSH_PATH
        status = http_status(url, method="POST", timeout_s=FLUSH_TIMEOUT_S)
        if status is None or not 200 <= status < 300:
            log(f"warning: POST {commands.FLUSH_PATH} failed ({status}); continuing")

    def accept_length(self) -> float | None:
        """The server's average speculative acceptance length since the last flush
        (`internal_states[0].avg_spec_accept_length`), or None when it reports none."""
        for path in commands.SERVER_INFO_PATHS:
            info = http_json(self.base_url + path, timeout_s=READY_PROBE_TIMEOUT_S)
            if isinstance(info, dict) and isinstance(info.get("decode"), list) and info["decode"]:
                info = info["decode"][0]  # a disaggregated server reports per role
            states = info.get("internal_states") if isinstance(info, dict) else None
            if isinstance(states, list) and states and isinstance(states[0], dict):
                value = finite(states[0].get("avg_spec_accept_length"))
                if value is not None and value < 1:
                    log(f"warning: the server reports an acceptance length below 1 ({value})")
                    return None
                return value
        return None

    def exit_status(self) -> str | None:
        """How the server process ended, when it has ("status 1", "signal SIGKILL")."""
        child = self._child
        if child is None or child.alive():
            return None
        return describe_exit(child.proc.wait())

    def reap(self) -> None:
        """Log the exit of a server that stopped on its own and stop what it left behind."""
        child = self._child
        if child is not None and not child.alive():
            log(f"server pid {child.pid} exited with {describe_exit(child.proc.wait())}")
            self.stop()

    def stop(self) -> None:
        """Stop the server, its descendants and what an earlier server left behind."""
        if self._child is not None:
            self._supervisor.stop(self._child, strays=True)
            self._child = None
