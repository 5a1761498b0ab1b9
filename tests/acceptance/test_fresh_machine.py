"""`make test` on a machine without the Debian packages its tests need: it installs them
when it can (root, or sudo without a password) and otherwise stops at once with one line.

The packages are installed here, so each test runs make with a PATH that holds only what
the case needs (stand-ins for sudo and apt-get from tests/standin/apt), as the user nobody
when the tests run as root.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

APT = ROOT / "tests" / "standin" / "apt"
PACKAGES = "docker-registry skopeo jq chromium chromium-driver"
NOBODY = ("--reuid=65534", "--regid=65534", "--clear-groups")  # setpriv (util-linux)


def refusal(packages: str) -> str:
    return (
        f"make test: the Debian packages {packages} are missing: run it as root (or with "
        "passwordless sudo) on Debian or Ubuntu to install them, or set "
        "SGLANG_CI_NO_REGISTRY=1 (docker-registry, skopeo, jq) or SGLANG_CI_NO_BROWSER=1 "
        "(chromium, chromium-driver) to skip their tests\n"
    )


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory the user nobody can read and write (tmp_path's parents are private)."""
    with tempfile.TemporaryDirectory() as name:
        path = Path(name)
        path.chmod(0o777)
        yield path


def tools(where: Path, *names: str) -> Path:
    """A PATH directory holding only `names`: the apt stand-ins, `env`, or a no-op command."""
    bin_dir = where / "bin"
    bin_dir.mkdir()
    for name in names:
        if (APT / name).is_file():
            (bin_dir / name).symlink_to(APT / name)
        elif name == "env":
            (bin_dir / name).symlink_to(str(shutil.which("env")))
        else:
            (bin_dir / name).write_text("#!/bin/sh\n")
            (bin_dir / name).chmod(0o755)
    bin_dir.chmod(0o755)
    return bin_dir


def make(
    path: Path, target: str = "test", log: Path | None = None, **switches: str
) -> subprocess.CompletedProcess[str]:
    """`make TARGET` as a user who is not root, with nothing but `path` on PATH."""
    user: tuple[str, ...] = ()
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        assert setpriv is not None, "setpriv (util-linux) runs make as nobody for these tests"
        user = (setpriv, *NOBODY)
    environ = {"PATH": str(path), **switches}
    if log is not None:
        environ["APT_LOG"] = str(log)
    return subprocess.run(
        [*user, str(shutil.which("make")), "--no-print-directory", "-C", str(ROOT), target],
        env=environ,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_without_the_packages_or_sudo_make_test_stops_at_once_naming_them_and_the_switches(
    shared_dir: Path,
) -> None:
    proc = make(tools(shared_dir))
    assert (proc.returncode, proc.stdout) == (2, "")
    ours, make_says = proc.stderr.splitlines(keepends=True)
    assert ours == refusal(PACKAGES)
    assert re.fullmatch(r"make: \*\*\* \[Makefile:[0-9]+: system-packages\] Error 2\n", make_says)


def test_a_switch_leaves_its_packages_out_of_the_refusal(shared_dir: Path) -> None:
    proc = make(tools(shared_dir), SGLANG_CI_NO_BROWSER="1")
    assert proc.returncode == 2
    assert proc.stderr.splitlines()[0] == refusal("docker-registry skopeo jq").rstrip("\n")


def test_with_passwordless_sudo_make_test_installs_exactly_the_missing_packages(
    shared_dir: Path,
) -> None:
    log = shared_dir / "apt.log"
    log.touch(mode=0o666)
    log.chmod(0o666)
    # skopeo, jq and chromedriver are there: the other two are installed (the step of
    # `make test` that runs first; the rest of it is what every other test checks).
    path = tools(shared_dir, "sudo", "apt-get", "env", "skopeo", "jq", "chromedriver")
    proc = make(path, "system-packages", log)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        0,
        "Installing docker-registry chromium\n",
        "",
    )
    assert log.read_text().splitlines() == [
        "DEBIAN_FRONTEND=noninteractive apt-get update -q",
        (
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "
            "docker-registry chromium"
        ),
    ]


def test_with_every_package_present_nothing_is_installed_or_said(shared_dir: Path) -> None:
    script = ROOT / ".ci" / "system-packages"
    path = tools(shared_dir, "docker-registry", "skopeo", "jq", "chromium", "chromedriver")
    proc = subprocess.run(
        ["/bin/bash", str(script)],
        env={"PATH": str(path)},
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_the_ci_entry_point_runs_make_test_and_nothing_else() -> None:
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    code = [line for line in lines if line and not line.startswith("#")]
    assert code == ["set -euo pipefail", 'cd "$(dirname "$0")/.."', "make test"]
