"""The two entry scripts are thin, strict, shellcheck-clean wrappers of scripts/launch.py;
every other shell script (stand-ins, .ci/) is shellcheck-clean too."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.launchers.support import SCRIPTS, STANDIN

WRAPPERS = {"run_benchmark.sh": "benchmark", "run_accuracy.sh": "accuracy"}
SHELL_FILES = [
    *(SCRIPTS / name for name in WRAPPERS),
    STANDIN / "bin" / "lm_eval",
    STANDIN / "bin" / "hf",
    STANDIN / "gpu" / "amd" / "amd-smi",
    STANDIN / "gpu" / "rocm" / "rocm-smi",
    STANDIN / "apt" / "apt-get",
    STANDIN / "apt" / "sudo",
    SCRIPTS.parent / ".ci" / "run",
    SCRIPTS.parent / ".ci" / "system-packages",
]


def shellcheck_binary() -> str | None:
    beside_python = Path(sys.executable).parent / "shellcheck"
    if beside_python.is_file():
        return str(beside_python)
    return shutil.which("shellcheck")


def test_the_only_shell_scripts_are_the_two_wrappers() -> None:
    assert sorted(p.name for p in SCRIPTS.rglob("*.sh")) == sorted(WRAPPERS)


def test_shellcheck_reports_no_finding_on_any_shell_script() -> None:
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


@pytest.mark.parametrize(("name", "mode"), WRAPPERS.items())
def test_each_wrapper_is_executable_strict_and_execs_the_isolated_launcher(
    name: str, mode: str
) -> None:
    path = SCRIPTS / name
    lines = path.read_text(encoding="utf-8").splitlines()
    code = [line for line in lines if line and not line.startswith("#")]
    assert path.stat().st_mode & 0o111 == 0o111
    assert lines[0] == "#!/usr/bin/env bash"
    assert code == [
        "set -euo pipefail",
        (
            'exec "${PYTHON:-python3}" -I "$(dirname -- "${BASH_SOURCE[0]}")/launch.py" '
            f'{mode} "$@"'
        ),
    ]
