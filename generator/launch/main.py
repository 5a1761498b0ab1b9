"""Entry point of both launchers (scripts/launch.py): `benchmark JOB_JSON_FILE` or
`accuracy CASE_JSON_FILE`.

Exit status (core/exits.py): 0 success; 1 a failed point or a score below threshold;
2 bad input (checked before anything starts), an infrastructure failure or results that
could not be written to RESULTS_DIR; 3 a bug in the launcher (one line; the traceback in
LOG_DIR); 128 + signal when cancelled.
"""

from __future__ import annotations

import functools
import io
import os
import sys
from pathlib import Path

from generator.core.entry_checks import check_case, check_job
from generator.core.exits import InputError, LaunchError, bug, error
from generator.core.field_checks import load_object
from generator.launch.accuracy_case import run_accuracy
from generator.launch.benchmark_job import run_benchmark
from generator.launch.knobs import read_knobs
from generator.launch.process import Cancelled, Supervisor

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

PROGRAMS = {"benchmark": "run_benchmark.sh", "accuracy": "run_accuracy.sh"}
USAGE = "usage: run_benchmark.sh JOB_JSON_FILE | run_accuracy.sh CASE_JSON_FILE"


def main(root: Path, argv: Sequence[str] | None = None) -> int:
    """The launcher run from the checkout `root` (scripts/launch.py passes its own)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(line_buffering=True, errors="backslashreplace")
    if len(args) != 2 or args[0] not in PROGRAMS:
        print(USAGE, file=sys.stderr)
        return InputError.return_code
    mode, path = args
    program = PROGRAMS[mode]
    run: Callable[[Supervisor], int]
    try:
        knobs = read_knobs(os.environ, Path.cwd(), root)
        data = load_object(Path(path))
        if mode == "benchmark":
            run = functools.partial(run_benchmark, check_job(data, path), knobs)
        else:
            run = functools.partial(run_accuracy, check_case(data, path), knobs)
    except LaunchError as exc:
        return error(program, exc)
    except Exception as exc:
        return bug(program, exc, None)
    try:
        with Supervisor(knobs.stop_grace_s) as supervisor:
            return run(supervisor)
    except Cancelled as exc:
        return 128 + exc.signum
    except LaunchError as exc:
        return error(program, exc)
    except Exception as exc:
        return bug(program, exc, knobs.log_dir)
