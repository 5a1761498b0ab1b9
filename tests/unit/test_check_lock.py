"""scripts/check_lock.py: the hash locks name exactly what the pins pin, each hashed."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCRIPT = ROOT / "scripts" / "check_lock.py"
FILES = (
    "requirements.txt",
    "requirements-build.txt",
    "requirements.lock",
    "requirements-build.lock",
)


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True, check=False
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    for name in FILES:
        shutil.copyfile(ROOT / name, tmp_path / name)
    return tmp_path


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_the_committed_locks_match_the_pins(root: Path) -> None:
    done = check(root)
    assert (done.returncode, done.stderr) == (0, "")
    assert (
        done.stdout == "check_lock.py: requirements.lock, requirements-build.lock match the pins\n"
    )


# A change of the pins (or of a lock by hand) that `make lock` did not follow.
DRIFT = {
    "a-version-bumped": (
        "requirements.txt", "click==8.5.1\n", "click==8.5.2\n",
        "requirements.lock: click is 8.5.1, requirements.txt pins 8.5.2",
    ),
    "a-package-added": (
        "requirements.txt", "click==8.5.1\n", "click==8.5.1\ntomli==2.0.1\n",
        "requirements.lock: tomli==2.0.1 of requirements.txt is not locked",
    ),
    "a-dependency-left-unpinned": (
        "requirements.txt", "narwhals==2.29.0\n", "",
        "requirements.lock: narwhals==2.29.0 is locked but requirements.txt does not pin it",
    ),
    "a-build-backend-bumped": (
        "requirements-build.txt", "setuptools==70.3.0\n", "setuptools==71.0.0\n",
        "requirements-build.lock: setuptools is 70.3.0, requirements-build.txt pins 71.0.0",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", DRIFT, ids=DRIFT.keys())
def test_drift_between_the_pins_and_the_locks_fails_the_check(root: Path, case: str) -> None:
    name, old, new, line = DRIFT[case]
    _replace(root / name, old, new)
    done = check(root)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        line,
        "check_lock.py: the locks differ from the pins: run `make lock` and commit the locks",
    ]


def test_a_locked_package_without_a_hash_fails_the_check(root: Path) -> None:
    lock = root / "requirements.lock"
    text = lock.read_text()
    start = text.index("cronsim==2.8 \\\n")
    end = text.index("    # via", start)
    lock.write_text(text[:start] + "cronsim==2.8\n" + text[end:])
    done = check(root)
    assert done.returncode == 1
    assert done.stderr.splitlines()[0] == "requirements.lock: cronsim==2.8 has no --hash"


def test_a_pin_that_is_not_exact_is_refused_with_its_line(root: Path) -> None:
    _replace(root / "requirements.txt", "click==8.5.1\n", "click>=8\n")
    done = check(root)
    assert done.returncode == 2
    line = next(
        n for n, t in enumerate((root / "requirements.txt").read_text().splitlines(), 1)
        if t == "click>=8"
    )  # fmt: skip
    assert done.stderr == (
        f"check_lock.py: error: {root}/requirements.txt:{line}: click is not pinned with ==\n"
    )
