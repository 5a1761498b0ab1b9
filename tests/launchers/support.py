"""Helpers that run the real launcher scripts against the stand-in sglang package."""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.launch.commands import Where

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
STANDIN = REPO / "tests" / "standin"
RUN_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def process_state(pid: int) -> str | None:
    """The /proc state letter of pid, or None when there is no such process."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return None  # the pid was reused by a process that is not ours
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def running(pids: list[int]) -> list[int]:
    """Pids still running. A zombie ("Z") has terminated and only awaits reaping by
    PID 1 (the stand-in scheduler is a grandchild of the launcher), so it does not count."""
    return [pid for pid in pids if process_state(pid) not in (None, "Z", "X")]


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


@dataclass
class Harness:
    """One isolated launcher environment under tmp_path, with its own free port."""

    root: Path
    port: int = field(default_factory=free_port)

    def __post_init__(self) -> None:
        (self.root / "tmp").mkdir()
        (self.root / "home").mkdir()

    @property
    def results(self) -> Path:
        return self.root / "results"

    @property
    def logs(self) -> Path:
        return self.results / "logs"

    @property
    def where(self) -> Where:
        """What the launcher fills `commands.Where` with under base_env()."""
        return Where(python=sys.executable, port=str(self.port), logs=str(self.logs))

    @property
    def record_file(self) -> Path:
        return self.root / "server-record.jsonl"

    @property
    def client_record_file(self) -> Path:
        return self.root / "client-record.jsonl"

    @property
    def pids_file(self) -> Path:
        return self.root / "pids"

    @property
    def summary_file(self) -> Path:
        return self.root / "step-summary.md"

    def base_env(self) -> dict[str, str]:
        """The complete environment the launcher is started with."""
        return {
            "PATH": f"{STANDIN / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.root / "home"),
            "PWD": str(self.root),
            "SHLVL": "1",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": str(self.root / "tmp"),
            "PYTHONPATH": str(STANDIN),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHON": sys.executable,
            "SGLANG_PORT": str(self.port),
            "READY_POLL_S": "0.05",
            "READY_TIMEOUT_S": "10",
            "SERVER_STOP_GRACE_S": "2",
            "RESULTS_DIR": str(self.results),
            "GITHUB_STEP_SUMMARY": str(self.summary_file),
            "SGLANG_STANDIN_RECORD": str(self.record_file),
            "SGLANG_STANDIN_CLIENT_RECORD": str(self.client_record_file),
            "SGLANG_STANDIN_PIDS": str(self.pids_file),
        }

    def write_json(self, name: str, data: Mapping[str, Any]) -> Path:
        path = self.root / name
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        return path

    def command(self, script: str, input_file: Path) -> list[str]:
        return [str(SCRIPTS / script), str(input_file)]

    def run(self, script: str, input_file: Path, env: Mapping[str, str] | None = None) -> Run:
        full_env = {**self.base_env(), **(env or {})}
        proc = subprocess.run(
            self.command(script, input_file),
            env=full_env,
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def start(
        self, script: str, input_file: Path, env: Mapping[str, str] | None = None
    ) -> subprocess.Popen[str]:
        return subprocess.Popen(
            self.command(script, input_file),
            env={**self.base_env(), **(env or {})},
            cwd=self.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    def server_records(self) -> list[dict[str, Any]]:
        if not self.record_file.exists():
            return []
        lines = self.record_file.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]

    def client_records(self) -> list[dict[str, Any]]:
        if not self.client_record_file.exists():
            return []
        lines = self.client_record_file.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]

    def pids(self) -> list[int]:
        if not self.pids_file.exists():
            return []
        return [int(line) for line in self.pids_file.read_text(encoding="utf-8").split()]

    def wait_for_pids(self, count: int, timeout_s: float = 20.0) -> list[int]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            pids = self.pids()
            if len(pids) >= count:
                return pids
            time.sleep(0.02)
        raise AssertionError(f"expected {count} stand-in pids, got {self.pids()}")

    def result(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.results / f"{name}.json").read_text("utf-8"))
        return data

    def server_prefix(self, model_path: str) -> list[str]:
        return ["--model-path", model_path, "--host", "127.0.0.1", "--port", str(self.port)]

    def expected_server_env(self, job_env: Mapping[str, str]) -> dict[str, str]:
        """The launcher's complete environment with the job env on top, nothing else."""
        return {**self.base_env(), **job_env}


def printed_command(env: Mapping[str, str], argv: list[str]) -> list[str]:
    """The lines the launcher prints for the resolved server command."""
    return [f"{key}={shlex.quote(value)}" for key, value in env.items()] + [shlex.join(argv)]


def bench_job(job_id: str, points: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    job: dict[str, Any] = {
        "id": job_id,
        "suite": "SGLang-OOB",
        "config": f"{job_id}-config",
        "display": f"Display {job_id}",
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "runner": "atom-mi355-8gpu-aac-runner",
        "image": "rocm/atom-dev:sglang-latest",
        "server_mode": "sglang-atom",
        "server_args": ["--trust-remote-code", "--tensor-parallel-size", "4"],
        "env": {"SGLANG_USE_AITER": "1", "SGLANG_DEFAULT_SERVER_ARGS": ""},
        "timeout_minutes": 120,
        "points": points,
    }
    job.update(extra)
    return job


def bench_point(
    point_id: str, concurrency: int, *, num_prompts: int = 2, num_warmups: int = 0
) -> dict[str, Any]:
    return {
        "id": point_id,
        "isl": 1024,
        "osl": 512,
        "concurrency": concurrency,
        "random_range_ratio": 0.8,
        "num_prompts": num_prompts,
        "num_warmups": num_warmups,
    }
