"""What the launchers hand to `sglang.launch_server` is what `sglang-ci explain` prints."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from generator import commands
from generator.load import load_catalog
from tests.helpers import ROOT
from tests.launchers.support import Harness

MATRICES = ROOT / ".github/matrices"
COMMITTED = [
    MATRICES / "benchmark/schedule/oob-all.json",
    MATRICES / "benchmark/preset/mesh/sglang-atom/ds-all.json",
]


def committed_jobs() -> list[dict[str, Any]]:
    return [job for path in COMMITTED for job in json.loads(path.read_text())["include"]]


def explained(entry_id: str, kind: str) -> tuple[list[str], dict[str, str]]:
    """The server argv (after launch_server) and env that `explain` prints for an id."""
    text = commands.explain(load_catalog(ROOT), entry_id, kind=kind)
    env = dict(
        shlex.split(line)[1].split("=", 1)
        for line in text.splitlines()
        if line.startswith("export ")
    )
    server = next(line for line in text.splitlines() if "sglang.launch_server" in line)
    return shlex.split(server.removesuffix(" &"))[3:], env


def with_port(argv: list[str], port: int) -> list[str]:
    i = argv.index("--port")
    return [*argv[: i + 1], str(port), *argv[i + 2 :]]


@pytest.mark.parametrize("job", committed_jobs(), ids=lambda j: j["id"])
def test_each_committed_benchmark_job_starts_the_explained_server(
    harness: Harness, job: dict[str, Any]
) -> None:
    job = {**job, "points": job["points"][:1]}
    run = harness.run("run_benchmark.sh", harness.write_json("job.json", job))
    assert run.returncode == 0, run.stdout + run.stderr
    [record] = harness.server_records()
    argv, env = explained(job["id"], "job")
    assert record["argv"] == with_port(argv, harness.port)
    assert record["env"] == harness.expected_server_env(env)
    if job["id"].startswith("deepseek-r1-fp8-mesh-dpa") and job["id"].endswith("8192x1"):
        assert record["argv"].count("--chunked-prefill-size") == 1


CASES = commands.cases(load_catalog(ROOT), level="nightly")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["id"])
def test_each_accuracy_case_starts_the_explained_server(
    harness: Harness, tmp_path: Path, case: dict[str, Any]
) -> None:
    run = harness.run("run_accuracy.sh", harness.write_json("case.json", case))
    assert run.returncode == 0, run.stdout + run.stderr
    [record] = harness.server_records()
    argv, env = explained(case["id"], "case")
    assert record["argv"] == with_port(argv, harness.port)
    assert record["env"] == harness.expected_server_env(env)
    if case["model_path"].startswith("deepseek"):
        assert "AITER_QUICK_REDUCE_QUANTIZATION" not in record["env"]
