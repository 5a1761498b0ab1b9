"""On the runner: `python3 -I scripts/run_in_container.py benchmark|accuracy FILE` starts
the job's container with only the runner's GPUs and runs the launcher in it
(generator/launch/container.py); `confirm FILE` runs an A/B confirmation job, one container
per side (generator/launch/confirm.py). Standard library only, like the launcher."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.launch.container import main

if __name__ == "__main__":
    sys.exit(main())
