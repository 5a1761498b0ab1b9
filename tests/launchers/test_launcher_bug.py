"""A bug in the launcher: every point or the case still gets its record and the summary is
written, then the launcher exits 3 with one line naming the file that holds the traceback.
The bug is planted in a launcher run as scripts/launch.py runs it (a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from generator.core.exits import BUG, TRACEBACK_FILE
from tests.launchers.support import (
    REPO,
    RUN_TIMEOUT_S,
    Harness,
    assert_valid_record,
    fixture_case,
    fixture_job,
    running,
    small_points,
)

pytestmark = pytest.mark.fault

# scripts/launch.py with preflight.prepare replaced by one that fails as a bug would.
PLANTED = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from generator.launch import preflight

def prepare(*args, **kwargs):
    raise KeyError("planted")

preflight.prepare = prepare
from generator.launch.main import main
sys.exit(main(Path(sys.argv[1]), sys.argv[2:]))
"""


def entry(mode: str) -> dict[str, Any]:
    if mode == "benchmark":
        return small_points(fixture_job("--preset", "all-qwen"), [1, 2])
    return fixture_case("deepseek-r1-fp8-tp4")


@pytest.mark.parametrize("mode", ["benchmark", "accuracy"])
def test_a_bug_records_what_was_not_done_writes_the_summary_and_exits_3_with_one_line(
    harness: Harness, mode: str
) -> None:
    data = entry(mode)
    path = harness.write_json("entry.json", data)
    proc = subprocess.run(
        [sys.executable, "-I", "-c", PLANTED, str(REPO), mode, str(path)],
        env=harness.base_env(),
        cwd=harness.root,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
        check=False,
    )

    program = f"run_{mode}.sh"
    traceback_file = harness.logs / TRACEBACK_FILE
    assert proc.returncode == BUG == 3
    assert proc.stderr == (
        f"{program}: unexpected error (a bug in the launcher): KeyError: 'planted'; "
        f"the traceback is in {traceback_file}\n"
    )
    text = traceback_file.read_text(encoding="utf-8")
    assert text.startswith("Traceback (most recent call last):\n")
    assert text.endswith("KeyError: 'planted'\n")
    ids = [p["id"] for p in data["points"]] if mode == "benchmark" else [data["id"]]
    for name in ids:
        record = json.loads((harness.results / f"{name}.json").read_text(encoding="utf-8"))
        assert_valid_record(record)
        assert (record["status"], record["error"]) == (
            "failed" if mode == "benchmark" else "error",
            "the launcher failed: KeyError: 'planted'",
        )
    assert harness.summary_file.read_text(encoding="utf-8").count("the launcher failed") >= 1
    assert harness.server_records() == []
    assert running(harness.pids()) == []
