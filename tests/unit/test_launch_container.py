"""On the runner: the job's container sees only the runner's GPUs, the model cache and
the environment passed by name (generator/launch/container.py)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

from generator.core.exits import InputError
from generator.launch.container import allocated_devices
from tests.helpers import ROOT
from tests.launchers.support import fixture_job

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCRIPT = ROOT / "scripts/run_in_container.py"
FAKE_DOCKER = f"""#!{sys.executable}
import json, os, sys
with open(os.environ["FAKE_DOCKER_RECORD"], "a") as out:
    out.write(json.dumps(sys.argv[1:]) + "\\n")
"""


def test_an_allocation_file_becomes_device_flags_and_nothing_else() -> None:
    text = "--device /dev/dri/renderD128 --device=/dev/dri/renderD136\n"
    assert allocated_devices(text, "f") == [
        "--device=/dev/dri/renderD128",
        "--device=/dev/dri/renderD136",
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("--privileged", "f: '--privileged' is not a --device flag of a render device"),
        ("--device /etc/passwd", "f: '/etc/passwd' is not a render device (/dev/dri/renderD<n>)"),
        (
            "--device /dev/dri/renderD128 -v /:/host",
            "f: '-v' is not a --device flag of a render device",
        ),
        ("", "f: lists no GPU"),
    ],
)
def test_anything_else_in_an_allocation_file_is_refused(text: str, error: str) -> None:
    with pytest.raises(InputError) as caught:
        allocated_devices(text, "f")
    assert str(caught.value) == error


def job(tmp_path: Path, cache: Path | None, allocation: Path | None) -> Path:
    entry = fixture_job("--preset", "all-qwen")  # as `sglang-ci jobs` prints it
    entry["container"]["model_cache"] = None if cache is None else str(cache)
    entry["container"]["allocation_file"] = None if allocation is None else str(allocation)
    path = tmp_path / "runner-temp" / "job.json"
    path.parent.mkdir()
    path.write_text(json.dumps(entry))
    return path


def run(
    tmp_path: Path, job_file: Path, *extra: str, **env: str
) -> tuple[subprocess.CompletedProcess[str], list[list[str]]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    docker = bin_dir / "docker"
    docker.write_text(FAKE_DOCKER)
    docker.chmod(docker.stat().st_mode | stat.S_IEXEC)
    record = tmp_path / "docker.jsonl"
    proc = subprocess.run(
        [sys.executable, "-I", str(SCRIPT), "benchmark", str(job_file), *extra],
        capture_output=True,
        text=True,
        env={
            "PATH": f"{bin_dir}:{os.environ['PATH']}",
            "FAKE_DOCKER_RECORD": str(record),
            "GITHUB_WORKSPACE": str(tmp_path / "ws"),
            **env,
        },
        check=False,
    )
    calls = (
        [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
    )
    return proc, calls


def test_the_container_gets_the_allocated_gpus_the_cache_and_the_token_by_name(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "models"
    cache.mkdir()
    allocation = tmp_path / "gha-render-devices"
    allocation.write_text("--device /dev/dri/renderD128 --device /dev/dri/renderD136\n")
    job_file = job(tmp_path, cache, allocation)
    proc, calls = run(
        tmp_path,
        job_file,
        HF_TOKEN="hf_secret",
        RUNNER_NAME="mi355 runner 1",
        RUNNER_TEMP=str(job_file.parent),
        SERVER_STOP_GRACE_S="5",
        POINT_TIMEOUT_S="600",
    )
    assert proc.returncode == 0, proc.stderr
    assert calls[0] == ["rm", "--force", "sglang-ci-mi355-runner-1"]
    ws, scratch = str(tmp_path / "ws"), str(job_file.parent)
    entry = json.loads(job_file.read_text())
    assert calls[1] == [
        "run",
        "--rm",
        "--init",
        "--name=sglang-ci-mi355-runner-1",
        "--device=/dev/kfd",
        "--device=/dev/dri/renderD128",
        "--device=/dev/dri/renderD136",
        *entry["container"]["options"],
        f"--volume={cache}:/models",
        "--env=MODEL_CACHE=/models",
        f"--volume={ws}:{ws}",
        f"--workdir={ws}",
        f"--volume={scratch}:{scratch}",
        "--env=HF_TOKEN",
        "--env=RUNNER_NAME",
        "--env=RUNNER_TEMP",  # the results' fallback, inside the mounted scratch directory
        "--env=SERVER_STOP_GRACE_S",
        "--env=POINT_TIMEOUT_S",
        entry["image"],
        "bash",
        "scripts/run_benchmark.sh",
        str(job_file),
    ]
    assert "hf_secret" not in proc.stdout + proc.stderr + json.dumps(calls)


def test_without_an_allocation_file_the_whole_machine_is_exposed(tmp_path: Path) -> None:
    proc, calls = run(tmp_path, job(tmp_path, None, None))
    assert proc.returncode == 0, proc.stderr
    assert calls[1][4:6] == ["--device=/dev/kfd", "--device=/dev/dri"]
    assert not [a for a in calls[1] if a.startswith("--volume=") and a.endswith(":/models")]


@pytest.mark.parametrize("missing", ["allocation", "cache"])
def test_a_runner_without_its_declared_allocation_or_cache_fails_before_docker(
    tmp_path: Path, missing: str
) -> None:
    cache = tmp_path / "models"
    allocation = tmp_path / "gha-render-devices"
    if missing == "allocation":
        cache.mkdir()
    else:
        allocation.write_text("--device /dev/dri/renderD128\n")
    proc, calls = run(tmp_path, job(tmp_path, cache, allocation))
    assert (proc.returncode, calls) == (2, [])
    expected = (
        f"run_in_container.py: error: the runner label atom-mi355-8gpu-aac-runner allocates "
        f"GPUs in {allocation}, which cannot be read here: No such file or directory\n"
        if missing == "allocation"
        else f"run_in_container.py: error: the runner label's model cache {cache} is not a "
        "directory here\n"
    )
    assert proc.stderr == expected


def test_the_container_runs_the_launcher_of_the_checkout_it_is_given(tmp_path: Path) -> None:
    """The workflows run this script from the default branch's checkout and hand it the
    requested commit's checkout, which the container mounts and runs from."""
    requested = tmp_path / "ws" / "code"
    (requested / "scripts").mkdir(parents=True)
    proc, calls = run(tmp_path, job(tmp_path, None, None), str(requested))
    assert proc.returncode == 0, proc.stderr
    assert f"--volume={requested}:{requested}" in calls[1]
    assert f"--workdir={requested}" in calls[1]
    assert not [a for a in calls[1] if a == f"--workdir={tmp_path / 'ws'}"]


def test_a_checkout_of_another_commit_reads_the_model_cache_only(tmp_path: Path) -> None:
    """A pull request's launcher (a checkout of another commit than the default branch's
    this script runs from) gets the cache read-only and downloads into the job's scratch;
    the same commit gets it writable."""
    cache = tmp_path / "models"
    cache.mkdir()
    code = tmp_path / "ws" / "code"
    subprocess.run(["git", "clone", "--quiet", "--shared", str(ROOT), str(code)], check=True)
    job_file = job(tmp_path, cache, None)
    scratch = job_file.parent
    _, calls = run(tmp_path, job_file, str(code))
    assert f"--volume={cache}:/models" in calls[1]
    assert not [a for a in calls[1] if a.startswith("--env=MODEL_DOWNLOADS")]
    git = ["git", "-C", str(code), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "commit", "--quiet", "--allow-empty", "-m", "pr"], check=True)
    (tmp_path / "docker.jsonl").unlink()
    proc, calls = run(tmp_path, job_file, str(code))
    assert proc.returncode == 0, proc.stderr
    assert f"--volume={cache}:/models:ro" in calls[1]
    assert f"--env=MODEL_DOWNLOADS={scratch}/models" in calls[1]
    assert f"--volume={cache}:/models" not in calls[1]


def test_a_checkout_argument_that_is_no_checkout_is_refused_before_docker(
    tmp_path: Path,
) -> None:
    (tmp_path / "empty").mkdir()
    proc, calls = run(tmp_path, job(tmp_path, None, None), str(tmp_path / "empty"))
    assert (proc.returncode, calls) == (2, [])
    assert proc.stderr == (
        f"run_in_container.py: error: {tmp_path / 'empty'}: not a checkout of this repository "
        "(no scripts/ in it)\n"
    )
