"""Every launcher shell script is shellcheck-clean and parses with bash -n."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .support import SCRIPTS, STANDIN

SHELL_FILES = [*sorted(SCRIPTS.rglob("*.sh")), STANDIN / "bin" / "lm_eval"]


def shellcheck_binary() -> str | None:
    beside_python = Path(sys.executable).parent / "shellcheck"
    if beside_python.is_file():
        return str(beside_python)
    return shutil.which("shellcheck")


def test_the_launcher_shell_files_are_the_expected_ones() -> None:
    assert [p.relative_to(SCRIPTS.parent).as_posix() for p in SHELL_FILES] == [
        "scripts/lib/server.sh",
        "scripts/run_accuracy.sh",
        "scripts/run_benchmark.sh",
        "tests/standin/bin/lm_eval",
    ]


def test_shellcheck_reports_no_finding_on_any_launcher_script() -> None:
    binary = shellcheck_binary()
    if binary is None:
        pytest.skip("no shellcheck binary on PATH or next to the Python interpreter")
    proc = subprocess.run(
        [binary, "--format=gcc", *map(str, SHELL_FILES)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.parametrize("path", SHELL_FILES, ids=lambda p: p.name)
def test_bash_parses_the_script(path: Path) -> None:
    proc = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True, check=False)
    assert (proc.returncode, proc.stderr) == (0, "")


@pytest.mark.parametrize("name", ["run_benchmark.sh", "run_accuracy.sh"])
def test_the_entry_points_are_executable_and_strict(name: str) -> None:
    path = SCRIPTS / name
    text = path.read_text(encoding="utf-8")
    assert path.stat().st_mode & 0o111 == 0o111
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "\nset -euo pipefail\n" in text
