"""On the runner, before anything else: the job's container, with only the runner's GPUs.

`scripts/run_in_container.py benchmark|accuracy FILE` reads the entry's runner contract
(`container`: model cache, GPU allocation file, options), removes a container of ours that
a cancelled run left behind, and replaces itself with `docker run` (docker_run.container_argv)
of the launcher inside the job's image. Docker forwards a cancel's SIGINT/SIGTERM to the
container, where `--init` passes it on to the launcher.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import NoReturn

from generator.core import docker_run
from generator.core.console import say
from generator.core.entry_checks import check_case, check_job
from generator.core.exits import InputError
from generator.core.field_checks import load_object

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.core.contract import ServerEntry

PROGRAMS = {"benchmark": "run_benchmark.sh", "accuracy": "run_accuracy.sh"}
# A render device as an allocation file names it.
_DEVICE = re.compile(r"^/dev/dri/(renderD|card)[0-9]+$")
# Environment the launcher in the container reads, passed by name (never by value).
PASSED = (
    "HF_TOKEN",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_REPOSITORY",
    "GITHUB_WORKFLOW",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_ATTEMPT",
    "GITHUB_EVENT_NAME",
    "GITHUB_REF",
    "GITHUB_SHA",
    "RUNNER_NAME",
    "RUNNER_TEMP",  # mounted (the entry file's directory): the results' fallback
    "SGLANG_PORT",
    "READY_TIMEOUT_S",
    "SERVER_STOP_GRACE_S",
    "POINT_TIMEOUT_S",
    "MAX_SERVER_RESTARTS",
)


def allocated_devices(text: str, source: str) -> list[str]:
    """`--device=<render device>` for each device an allocation file lists (as docker
    flags, `--device /dev/dri/renderD128 ...`); InputError for anything else in it."""
    tokens = text.split()
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token == "--device" and i + 1 < len(tokens):
            device, i = tokens[i + 1], i + 2
        elif token.startswith("--device="):
            device, i = token.removeprefix("--device="), i + 1
        else:
            msg = f"{source}: '{token}' is not a --device flag of a render device"
            raise InputError(msg)
        if not _DEVICE.match(device):
            msg = f"{source}: '{device}' is not a render device (/dev/dri/renderD<n>)"
            raise InputError(msg)
        out.append(f"--device={device}")
    if not out:
        msg = f"{source}: lists no GPU"
        raise InputError(msg)
    return out


def devices(entry: ServerEntry) -> list[str]:
    """The GPUs of this runner: its allocation file's, or every render device."""
    source = entry["container"]["allocation_file"]
    if source is None:
        return ["--device=/dev/dri"]
    try:
        text = Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        msg = (
            f"the runner label {entry['runner']} allocates GPUs in {source}, which cannot be "
            f"read here: {exc.strerror}"
        )
        raise InputError(msg) from exc
    return allocated_devices(text, source)


def container_name(entry: ServerEntry, environ: Mapping[str, str]) -> str:
    """One name per runner (a runner runs one job at a time), so a container a cancelled
    run left behind is found and removed."""
    owner = environ.get("RUNNER_NAME") or entry["id"]
    return "sglang-ci-" + re.sub(r"[^A-Za-z0-9_.-]", "-", owner)


def checkout_dir(given: str | None, environ: Mapping[str, str]) -> str:
    """The checkout the container mounts and runs the launcher of: CHECKOUT when given
    (the requested commit, beside the default branch's checkout this script runs from),
    else the job's workspace."""
    if given is None:
        return environ.get("GITHUB_WORKSPACE") or str(Path.cwd())
    path = Path(given).resolve()
    if not (path / "scripts").is_dir():
        msg = f"{given}: not a checkout of this repository (no scripts/ in it)"
        raise InputError(msg)
    return str(path)


def same_commit(checkout: str, trusted: str) -> bool:
    """Whether the launcher's checkout is the commit of the checkout this script runs
    from (the default branch's): only then may the job write the shared model cache. A
    checkout that git cannot read counts as another commit."""
    if Path(checkout).resolve() == Path(trusted).resolve():
        return True
    heads = []
    for directory in (checkout, trusted):
        done = subprocess.run(
            ["git", "-C", directory, "rev-parse", "--verify", "HEAD^{commit}"],
            capture_output=True,
            text=True,
            check=False,
        )
        heads.append(done.stdout.strip() if done.returncode == 0 else None)
    return heads[0] is not None and heads[0] == heads[1]


def start(kind: str, path: str, given: str | None) -> NoReturn:
    """`benchmark|accuracy FILE [CHECKOUT]`: the job's container, replacing this process."""
    environ = os.environ
    data = load_object(Path(path))
    entry: ServerEntry = check_job(data, path) if kind == "benchmark" else check_case(data, path)
    cache = entry["container"]["model_cache"]
    if cache is not None and not Path(cache).is_dir():
        msg = f"the runner label's model cache {cache} is not a directory here"
        raise InputError(msg)
    workspace = checkout_dir(given, environ)
    trusted = str(Path(__file__).resolve().parents[2])
    argv_docker = docker_run.container_argv(
        entry,
        name=container_name(entry, environ),
        devices=devices(entry),
        workspace=workspace,
        scratch=str(Path(path).resolve().parent),
        passed=[name for name in PASSED if name in environ],
        program=f"scripts/{PROGRAMS[kind]}",
        entry_file=str(Path(path).resolve()),
        read_only_cache=given is not None and not same_commit(workspace, trusted),
    )
    name = container_name(entry, environ)
    subprocess.run(["docker", "rm", "--force", name], capture_output=True, check=False)
    say(f"[run_in_container] {shlex.join(argv_docker)}")
    os.execvp(argv_docker[0], argv_docker)
