"""Fixtures for the launcher end-to-end tests."""

from __future__ import annotations

import os
import signal

import pytest

from tests.launchers.support import Harness, running

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fault: a fault the launcher must survive (docs/reliability.md lists each one)",
    )


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(tmp_path)
    yield h
    survivors = running(h.pids())
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert survivors == [], f"stand-in processes survived the launcher: {survivors}"
