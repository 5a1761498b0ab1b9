"""On the runner host: `scripts/run_in_container.py benchmark|accuracy|confirm FILE
[CHECKOUT]`, the entry the GPU workflows call from the default branch's checkout. A
benchmark or accuracy job replaces this process with its container (container.py); an A/B
confirmation job runs its two sides (confirm_job.py)."""

from __future__ import annotations

import sys

from generator.core.exits import InputError, LaunchError, bug, error
from generator.launch.confirm_job import main_confirm
from generator.launch.container import PROGRAMS, start

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

PROGRAM = "run_in_container.py"
USAGE = f"usage: {PROGRAM} benchmark|accuracy|confirm FILE [CHECKOUT]"


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status: as the launcher's (core/exits.py); a benchmark or accuracy job never
    returns on success (the process becomes the container's `docker run`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) not in (2, 3) or args[0] not in (*PROGRAMS, "confirm"):
        print(USAGE, file=sys.stderr)
        return InputError.return_code
    kind, path, given = args[0], args[1], args[2] if len(args) == 3 else None
    try:
        if kind == "confirm":
            return main_confirm(path, checkout=given)
        start(kind, path, given)
    except LaunchError as exc:
        return error(PROGRAM, exc)
    except Exception as exc:
        return bug(PROGRAM, exc, None)
