"""Entry point of scripts/run_benchmark.sh and scripts/run_accuracy.sh.

Run as `python3 -I scripts/launch.py benchmark|accuracy FILE`: `-I` keeps PYTHONPATH and
the user's site-packages out of the launcher's own imports (the server and the clients
still inherit the environment unchanged), so the repository root is put on sys.path here.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generator.launch.main import main

if __name__ == "__main__":
    sys.exit(main(Path(__file__).resolve().parent.parent))  # the checkout
