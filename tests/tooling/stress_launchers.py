"""The launcher tests, run again and again with both cores busy: no test may depend on a
sub-second timing, so every run must pass.

    .venv/bin/python -m tests.tooling.stress_launchers [--runs 10] [--busy 2] [PYTEST_ARGS...]

Starts `--busy` workers of `yes > /dev/null` (one per core of the machines the tests run
on), runs `pytest tests/launchers` (with the project's options: three xdist workers) `--runs`
times in a row, stops the workers it started, and prints each run's outcome and time and
then `passed N of M runs`; a failed run's short test summary (`FAILED ...` lines) is
printed under it and its whole output kept in `--keep` (default: stress-launchers-<run>.log
in the system's temporary directory). Exit status 0 when every run passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

ROOT = Path(__file__).resolve().parents[2]
TESTS = "tests/launchers"


@contextmanager
def busy(workers: int) -> Iterator[list[int]]:
    """`workers` processes of `yes` writing to /dev/null, stopped (and reaped) on exit."""
    procs: list[subprocess.Popen[bytes]] = []
    try:
        # One at a time, each kept at once: the finally stops those started if one fails.
        for _ in range(workers):
            procs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL))  # noqa: PERF401 (see above)
        yield [p.pid for p in procs]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait()


def run_once(pytest_args: Sequence[str]) -> tuple[int, float, str]:
    """pytest's exit status, the run's seconds and its output. pytest runs in a process
    group of its own, stopped with everything in it if this script is stopped."""
    started = time.monotonic()
    with subprocess.Popen(
        [sys.executable, "-m", "pytest", TESTS, "-p", "no:cacheprovider", "-rfE", *pytest_args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    ) as proc:
        try:
            output, _ = proc.communicate()
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
    return proc.returncode, time.monotonic() - started, output


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="runs in a row (default 10)")
    parser.add_argument("--busy", type=int, default=2, help="`yes` workers (default 2)")
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()))
    args, pytest_args = parser.parse_known_args(argv)
    # Stopped by a signal, it still stops what it started (a background job ignores SIGINT).
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda signum, _frame: sys.exit(128 + signum))
    passed = 0
    with busy(args.busy) as pids:
        print(f"{args.busy} busy worker(s) (yes > /dev/null): pids {pids}", flush=True)
        for run in range(1, args.runs + 1):
            status, seconds, output = run_once(pytest_args)
            passed += status == 0
            outcome = "passed" if status == 0 else f"FAILED (exit {status})"
            lines = output.strip().splitlines() or [""]
            print(f"run {run}/{args.runs}: {outcome} in {seconds:.1f}s: {lines[-1]}", flush=True)
            if status != 0:
                kept = args.keep / f"stress-launchers-{run}.log"
                kept.write_text(output, encoding="utf-8")
                for line in lines:
                    if line.startswith(("FAILED ", "ERROR ")):
                        print(f"  {line}", flush=True)
                print(f"  the whole output: {kept}", flush=True)
    print(f"passed {passed} of {args.runs} runs; load average {os.getloadavg()[0]:.2f}")
    return 0 if passed == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
