"""The distribution server on a free loopback port, with its own config and storage, and
skopeo to push to it and read it back."""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

TOOLS = ("docker-registry", "skopeo")
SKIP_ENV = "SGLANG_CI_NO_REGISTRY"


def require_tools() -> dict[str, str]:
    """The tools' paths. Missing tools fail the tests (CI must never skip them silently);
    `SGLANG_CI_NO_REGISTRY=1` skips them on purpose."""
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(f"{SKIP_ENV}=1: the registry tests are turned off")
    found = {tool: shutil.which(tool) for tool in TOOLS}
    missing = [tool for tool, path in found.items() if path is None]
    if missing:
        pytest.fail(
            f"{' and '.join(missing)} not installed: make test installs them "
            f"(apt-get install docker-registry skopeo), or set {SKIP_ENV}=1 to skip these tests",
            pytrace=False,
        )
    return {tool: str(path) for tool, path in found.items()}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


CONFIG = """\
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: {root}
http:
  addr: 127.0.0.1:{port}
"""


@dataclass(frozen=True)
class LocalRegistry:
    """A running registry at `host` (`127.0.0.1:<port>`), with skopeo to reach it."""

    host: str
    skopeo: str

    def push(self, layout: Path, refs: Sequence[tuple[str, str]]) -> None:
        """Copy each (layout ref, `name:tag`) to the registry, all platforms of an index.

        One copy at a time: the registry's filesystem storage can answer 500 to two
        uploads of one blob into one repository at once."""
        failures = []
        for ref, target in refs:
            done = subprocess.run(
                [
                    *(self.skopeo, "--insecure-policy", "copy", "--quiet", "--all"),
                    *("--dest-tls-verify=false", f"oci:{layout}:{ref}"),
                    f"docker://{self.host}/{target}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=60,
                check=False,
            )
            if done.returncode:
                failures.append(f"{target}: {done.stderr.decode().strip()}")
        assert not failures, "skopeo copy failed: " + "; ".join(failures)

    def raw_digest(self, target: str) -> str:
        """sha256 of the manifest skopeo reads for `name:tag` (an index for a multi-arch tag)."""
        raw = subprocess.run(
            [
                *(self.skopeo, "--insecure-policy", "inspect", "--raw", "--tls-verify=false"),
                f"docker://{self.host}/{target}",
            ],
            capture_output=True,
            check=True,
            timeout=60,
        ).stdout
        return "sha256:" + hashlib.sha256(raw).hexdigest()


def _wait_ready(process: subprocess.Popen[bytes], url: str, log: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            msg = f"docker-registry exited: {log.read_text().strip()}"
            raise RuntimeError(msg)
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    msg = f"docker-registry did not answer on {url} within 15 s"
    raise RuntimeError(msg)


@contextmanager
def running_registry(workdir: Path) -> Iterator[LocalRegistry]:
    """Start a registry storing under `workdir`; stop it (and wait for it) on exit."""
    tools = require_tools()
    port = free_port()
    config = workdir / "config.yml"
    config.write_text(CONFIG.format(root=workdir / "storage", port=port))
    log = workdir / "registry.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [tools["docker-registry"], "serve", str(config)], stdout=out, stderr=out
        )
    try:
        _wait_ready(process, f"http://127.0.0.1:{port}/v2/", log)
        yield LocalRegistry(host=f"127.0.0.1:{port}", skopeo=tools["skopeo"])
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
