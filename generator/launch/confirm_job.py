"""On the runner: an A/B confirmation job (abjob.py), `run_in_container.py confirm FILE`.

The job's affected points are measured on the last good image (A) and the current one
(B), interleaved (ab_order.py), with the job's server args, env and client on both: each side
is an ordinary benchmark job run by the launcher in its own container of its image.

- `parallel` (the runner's GPU allocation holds two servers of the layout): both
  containers start at once, each on its own half of the allocated GPUs and its own port;
  each point waits for its turn (turns.py), so one side measures while the other idles:
  two server launches.
- `restart`: one container at a time, a block of turns each (A | B B | A A | ...):
  K + 1 server launches.

When A/B confirms the event and nightly images lie between A and B, the job bisects
among them (at most `max_bisect_steps` more A/Bs of the last good image against one of
them) to name the first bad one. Every measurement becomes one confirmation document
(schema sglang-ci/confirmation/1) in RESULTS_DIR/confirmation/, wrapping the launcher's
record: a document no baseline reads as a run's record. `ab.json` beside them holds the
steps and their verdicts.

Exit status: 0 every turn measured; 1 a turn without a valid record; 2 bad input or a
side that never served.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from generator.core.abjob import check_confirmation
from generator.core.exits import FAILED, INFRASTRUCTURE, OK, InputError, LaunchError, error
from generator.core.field_checks import load_object
from generator.core.knob_table import DEFAULTS
from generator.launch import record_doc
from generator.launch.ab_side import SideContext, choose_mode, log
from generator.launch.ab_steps import FOLDER, run_steps
from generator.launch.container import PASSED, checkout_dir, container_name, devices
from generator.launch.process import Cancelled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import FrameType

    from generator.core.abjob import ConfirmationEntry

STOP_WAIT_S = 30.0


def run_confirmation(
    entry: ConfirmationEntry,
    *,
    environ: Mapping[str, str],
    workspace: str,
    scratch: Path,
    devices: list[str],
    passed: list[str],
    container: str,
) -> int:
    results = Path(environ.get("RESULTS_DIR") or Path(workspace, "results"))
    if not results.is_absolute():
        results = Path(workspace, results)
    poll = float(environ.get("READY_POLL_S") or DEFAULTS["READY_POLL_S"])
    ctx = SideContext(
        entry=entry,
        environ=environ,
        workspace=workspace,
        scratch=scratch,
        devices=devices,
        results=results,
        passed=passed,
        poll_s=poll,
        container=container,
        how=choose_mode(entry, devices),
    )
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def stop(signum: int, frame: FrameType | None) -> None:
        del frame
        raise Cancelled(signum)

    for signum in previous:
        signal.signal(signum, stop)
    try:
        summary = run_steps(ctx)
    except Cancelled as exc:
        log(f"received {exc}: stopping the containers")
        _stop(ctx)
        return 128 + exc.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    record_doc.write(results / FOLDER / entry["id"] / "ab.json", summary)
    if ctx.broken:
        return INFRASTRUCTURE
    return FAILED if ctx.failed_turns else OK


def _stop(ctx: SideContext) -> None:
    for proc in ctx.children:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    for proc in ctx.children:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main_confirm(
    path: str, environ: Mapping[str, str] | None = None, *, checkout: str | None = None
) -> int:
    """`run_in_container.py confirm FILE [CHECKOUT]`: check the job, then run it."""
    env = dict(os.environ if environ is None else environ)
    try:
        workspace = checkout_dir(checkout, env)
        entry = check_confirmation(load_object(Path(path)), path)
        cache = entry["container"]["model_cache"]
        if cache is not None and not Path(cache).is_dir():
            msg = f"the runner label's model cache {cache} is not a directory here"
            raise InputError(msg)
        found = devices(entry)
    except LaunchError as exc:
        return error("run_in_container.py", exc)
    return run_confirmation(
        entry,
        environ=env,
        workspace=workspace,
        scratch=Path(path).resolve().parent,
        devices=found,
        passed=[name for name in PASSED if name in env],
        container=container_name(entry, env),
    )
