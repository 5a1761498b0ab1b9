"""Turns between the two servers of an A/B that run at once (docs/confirmation.md).

Each side's launcher, in its own container, runs its points only when the orchestrator
on the runner gives the turn: it writes `ready` once its server serves, waits for
`<point id>.go` before each point and writes `<point id>.done` after the point's record;
a `stop` file ends the side early (its remaining points are recorded as not run). The
files live in a directory both the runner and the containers see (the job's scratch).
"""

from __future__ import annotations

import time
from pathlib import Path

from generator.core.console import log

READY = "ready"
STOP = "stop"


class TurnGate:
    """The turns of one side; without a directory every turn is given at once."""

    def __init__(self, folder: str | None, poll_s: float) -> None:
        self._folder = Path(folder) if folder else None
        self._poll_s = poll_s

    def _mark(self, name: str) -> None:
        if self._folder is not None:
            path = self._folder / name
            path.with_name(name + ".tmp").write_text("", encoding="utf-8")
            path.with_name(name + ".tmp").replace(path)

    def ready(self) -> None:
        self._mark(READY)

    def wait(self, point_id: str) -> bool:
        """True when the point's turn has come; False when the side is stopped."""
        if self._folder is None:
            return True
        go, stop = self._folder / f"{point_id}.go", self._folder / STOP
        log(f"point {point_id}: waiting for its turn")
        while not go.exists():
            if stop.exists():
                return False
            time.sleep(self._poll_s)
        return True

    def done(self, point_id: str) -> None:
        self._mark(f"{point_id}.done")
