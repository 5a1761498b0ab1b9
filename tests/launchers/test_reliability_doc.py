"""docs/reliability.md states the figures the test suite gives and names every fault test
(scripts/reliability_figures.py --check, on the collected tests)."""

from __future__ import annotations

import subprocess
import sys

from tests.launchers.support import REPO

SCRIPT = REPO / "scripts" / "reliability_figures.py"


def test_the_reliability_page_names_every_fault_test_and_states_the_figures() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--collect-only", "--check", "docs/reliability.md"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(
        "| Hostile inputs | Tried | Refused | Harmless | Crashed | Harmful |\n"
    )
