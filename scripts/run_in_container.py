"""On the runner: `python3 -I scripts/run_in_container.py benchmark|accuracy FILE [CHECKOUT]`
starts the job's container with only the runner's GPUs and runs the launcher of CHECKOUT
(default: the job's workspace) in it (generator/launch/host.py, container.py); `confirm FILE
[CHECKOUT]` runs an A/B confirmation job, one container per side (generator/launch/
confirm_job.py). The GPU workflows run this script from the default branch's checkout and
name the requested commit's checkout as CHECKOUT: what runs on the host is the default
branch's code (docs/security.md). Standard library only, like the launcher."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.launch.host import main

if __name__ == "__main__":
    sys.exit(main())
