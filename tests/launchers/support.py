"""Helpers that run the real launcher scripts against the stand-in tools."""

from __future__ import annotations

import copy
import functools
import json
import os
import random
import shlex
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
from click.testing import CliRunner

from generator.cli.sglang_ci import main as sglang_ci
from generator.core.commands import Where
from tests.helpers import FIXTURE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
STANDIN = REPO / "tests" / "standin"
AMD_SMI_DIR = STANDIN / "gpu" / "amd"
ROCM_SMI_DIR = STANDIN / "gpu" / "rocm"
RECORD_SCHEMA = REPO / "generator" / "results" / "schemas" / "record-1.schema.json"
RUN_TIMEOUT_S = 300  # a bound on one launcher run, however busy the machine
SHARDS = ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors")


EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port, and the one after it (an A/B's second server), free on 127.0.0.1 and below
    the kernel's ephemeral range: no outgoing connection of another test takes either
    between this check and the server's bind, as one could take a port the kernel picked."""
    low = int(EPHEMERAL.read_text().split()[0]) if EPHEMERAL.is_file() else 32768
    for _ in range(1000):
        port = random.randrange(10000, low - 1)
        if _bindable(port) and _bindable(port + 1):
            return port
    msg = f"no two free ports in 10000-{low - 1}"
    raise AssertionError(msg)


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


@functools.cache
def _record_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(RECORD_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def assert_valid_record(record: Mapping[str, Any]) -> None:
    """The record follows schema sglang-ci/record/1 (every error listed on failure)."""
    errors = [
        f"{list(e.absolute_path)}: {e.message}" for e in _record_validator().iter_errors(record)
    ]
    assert errors == []


# The JSON the command prints, of whatever shape: the tests index it as they assert.
@functools.cache
def _cli_json(*args: str) -> Any:  # noqa: ANN401 (see above)
    result = CliRunner().invoke(sglang_ci, ["--root", str(FIXTURE), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def fixture_job(*selection: str, index: int = 0) -> dict[str, Any]:
    """A job entry the generator writes for the fixture catalogs (a fresh copy)."""
    job: dict[str, Any] = copy.deepcopy(_cli_json("jobs", *selection)["include"][index])
    return job


def fixture_case(case_id: str, level: str = "nightly") -> dict[str, Any]:
    """A case entry the generator writes for the fixture catalogs (a fresh copy)."""
    cases = _cli_json("cases", "--level", level)
    case: dict[str, Any] = copy.deepcopy(next(c for c in cases if c["id"] == case_id))
    return case


def complete_snapshot(cache: Path, model: str) -> Path:
    """What `hf download` leaves: config.json, a weights index and the shards it names."""
    snapshot = cache / model
    snapshot.mkdir(parents=True, exist_ok=True)
    (snapshot / "config.json").write_text("{}\n", encoding="utf-8")
    weight_map = {f"layer.{i}": name for i, name in enumerate(SHARDS)}
    index = json.dumps({"weight_map": weight_map})
    (snapshot / "model.safetensors.index.json").write_text(index, encoding="utf-8")
    for name in SHARDS:
        (snapshot / name).write_bytes(b"\0")
    return snapshot


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


# The SGLang release the stand-in plays for jobs with the fixture catalogs' MTP fragments or
# sglang-mori mode: the newest. Their --cuda-graph-bs and --cuda-graph-max-bs are flags of
# SGLang up to 0.5.19, which 0.5.20 and later refuse as ambiguous prefixes (so does the
# stand-in playing those releases); the launcher gives them the names the release the
# version probe finds has (--cuda-graph-bs-decode, --cuda-graph-max-bs-decode).
CATALOG_SGLANG = {"SGLANG_STANDIN_VERSION": "0.5.23"}


@dataclass
class Harness:
    """One isolated launcher environment under `root`, with its own free port.
    `model_cache` is passed as MODEL_CACHE when set."""

    root: Path
    port: int = field(default_factory=free_port)
    model_cache: Path | None = None

    def __post_init__(self) -> None:
        (self.root / "tmp").mkdir(parents=True)
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
        return Where(
            python=sys.executable,
            port=str(self.port),
            logs=str(self.logs),
            model_cache=None if self.model_cache is None else str(self.model_cache),
            root=str(REPO),
        )

    @property
    def record_file(self) -> Path:
        return self.root / "server-record.jsonl"

    @property
    def client_record_file(self) -> Path:
        return self.root / "client-record.jsonl"

    @property
    def hf_record_file(self) -> Path:
        return self.root / "hf-record.jsonl"

    @property
    def pids_file(self) -> Path:
        return self.root / "pids"

    @property
    def summary_file(self) -> Path:
        return self.root / "step-summary.md"

    def base_env(self) -> dict[str, str]:
        """The complete environment the launcher is started with."""
        env = {
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
            "READY_TIMEOUT_S": "120",
            "SERVER_STOP_GRACE_S": "2",
            "RESULTS_DIR": str(self.results),
            "GITHUB_STEP_SUMMARY": str(self.summary_file),
            "GITHUB_SHA": "c0ffee0000000000000000000000000000000000",
            "SGLANG_STANDIN_RECORD": str(self.record_file),
            "SGLANG_STANDIN_CLIENT_RECORD": str(self.client_record_file),
            "SGLANG_STANDIN_HF_RECORD": str(self.hf_record_file),
            "SGLANG_STANDIN_PIDS": str(self.pids_file),
        }
        if self.model_cache is not None:
            env["MODEL_CACHE"] = str(self.model_cache)
        return env

    def write_json(self, name: str, data: Mapping[str, Any]) -> Path:
        path = self.root / name
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        return path

    def command(self, script: str, input_file: Path) -> list[str]:
        return [str(SCRIPTS / script), str(input_file)]

    def run(self, script: str, input_file: Path, env: Mapping[str, str] | None = None) -> Run:
        proc = subprocess.run(
            self.command(script, input_file),
            env={**self.base_env(), **(env or {})},
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

    @staticmethod
    def _lines(path: Path) -> list[dict[str, Any]]:
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def server_records(self) -> list[dict[str, Any]]:
        return self._lines(self.record_file)

    def client_records(self) -> list[dict[str, Any]]:
        return self._lines(self.client_record_file)

    def hf_records(self) -> list[dict[str, Any]]:
        return self._lines(self.hf_record_file)

    def pids(self) -> list[int]:
        if not self.pids_file.exists():
            return []
        return [int(line) for line in self.pids_file.read_text(encoding="utf-8").split()]

    def wait_for_pids(self, count: int, timeout_s: float = 120.0) -> list[int]:
        """Once `count` stand-in processes have written their pids (each writes its own
        when it starts), those pids."""
        self.wait_until(lambda: len(self.pids()) >= count, f"{count} stand-in pids", timeout_s)
        return self.pids()

    @staticmethod
    def wait_until(done: Callable[[], bool], what: str, timeout_s: float = 120.0) -> None:
        """Poll `done` until it holds: a state the stand-ins signal; `timeout_s` a bound."""
        deadline = time.monotonic() + timeout_s
        while not done():
            if time.monotonic() > deadline:
                msg = f"no {what} after {timeout_s:g}s"
                raise AssertionError(msg)
            time.sleep(0.02)

    def result(self, name: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.results / f"{name}.json").read_text("utf-8"))
        return data

    def expected_server_env(self, job_env: Mapping[str, str]) -> dict[str, str]:
        """The launcher's complete environment with the job env on top, nothing else."""
        return {**self.base_env(), **job_env}


def not_ready(reason: str, log: Path, lines: int = 20) -> str:
    """The error of a point or case whose server never became ready: why, then the last
    `lines` lines of its log (where SGLang says why: `ambiguous option: ...`)."""
    tail = log.read_text(encoding="utf-8").splitlines()[-lines:]
    return f"server did not become ready: {reason}; its last log lines:\n" + "\n".join(tail)


def printed_command(env: Mapping[str, str], argv: list[str]) -> list[str]:
    """The lines the launcher prints for the resolved server command."""
    return [f"{key}={shlex.quote(value)}" for key, value in env.items()] + [shlex.join(argv)]


def small_points(job: dict[str, Any], concurrencies: list[int], **point: Any) -> dict[str, Any]:
    """`job` with points at these concurrencies (2 prompts, no warm-up unless given), each
    named after the job and its concurrency."""
    template = job["points"][0]
    job["points"] = [
        {
            **template,
            "id": f"{job['id']}-c{c}",
            "concurrency": c,
            "num_prompts": 2,
            "num_warmups": 0,
            **point,
        }
        for c in concurrencies
    ]
    return job
