"""What the launcher runs is what `sglang-ci explain` prints, token for token: the server,
every client and the evaluator, recorded by the stand-ins."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from tests.conftest import Invoke
from tests.launchers.support import Harness

MORI = ("--mode", "sglang-mori", "--image", "lmsysorg/sglang-rocm:x")
# The stand-in clients record the module they stand for and their own arguments.
MODULES = ("sglang.bench_serving", "sglang.test.few_shot_gsm8k")


def explained(cli: Invoke, harness: Harness, *args: str) -> tuple[list[list[str]], dict[str, str]]:
    """The command lines and the server env explain prints, with its variables set to the
    harness's values (the only parts explain leaves to the machine)."""
    result = cli("explain", *args)
    assert result.exit_code == 0, result.stderr
    text = (
        result.stdout.replace('"${PYTHON}"', shlex.quote(harness.where.python))
        .replace('"${SGLANG_PORT}"', harness.where.port)
        .replace('"${LOG_DIR}"', shlex.quote(harness.where.logs))
    )
    argvs, env = [], {}
    for line in text.splitlines():
        tokens = shlex.split(line, comments=True)
        if tokens[:1] == ["export"]:
            key, _, value = tokens[1].partition("=")
            env[key] = value
        tokens = tokens[1:] if tokens[:1] == ["exec"] else tokens
        if tokens[:1] in ([harness.where.python], ["lm_eval"]):
            cut = next((i for i, t in enumerate(tokens) if t in (">", ">>")), len(tokens))
            argvs.append(tokens[:cut])
    return argvs, env


def recorded(harness: Harness) -> list[list[str]]:
    """Every command the stand-ins saw, in order: the server first, then the clients."""
    [server] = harness.server_records()
    out = [[harness.where.python, "-m", "sglang.launch_server", *server["argv"]]]
    for client in harness.client_records():
        tool = client["tool"]
        head = [harness.where.python, "-m", tool] if tool in MODULES else [tool]
        out.append([*head, *client["argv"]])
    return out


def job_of(cli: Invoke, *args: str) -> dict[str, Any]:
    result = cli("jobs", *args)
    assert result.exit_code == 0, result.stderr
    job: dict[str, Any] = json.loads(result.stdout)["include"][0]
    return job


@pytest.mark.parametrize(
    ("selection", "explain_args"),
    [
        (("--preset", "all-qwen"), ("--kind", "job")),
        (
            (
                "--preset",
                "ds-fp8-dpa8-ep8",
                "--mode",
                "sglang-mori",
                "--image",
                "lmsysorg/sglang-rocm:x",
            ),
            ("--kind", "job", "--mode", "sglang-mori", "--image", "lmsysorg/sglang-rocm:x"),
        ),
    ],
    ids=["oob-preset", "mesh-preset-mori"],
)
def test_a_benchmark_job_runs_exactly_what_explain_prints(
    cli: Invoke, harness: Harness, selection: tuple[str, ...], explain_args: tuple[str, ...]
) -> None:
    job = job_of(cli, *selection)
    run = harness.run("run_benchmark.sh", harness.write_json("job.json", job))
    assert run.returncode == 0, run.stdout + run.stderr
    argvs, env = explained(cli, harness, job["id"], *explain_args)
    assert recorded(harness) == argvs
    assert len(argvs) == 1 + len(job["points"])
    [server] = harness.server_records()
    assert server["env"] == harness.expected_server_env(env)


@pytest.mark.parametrize("case_id", ["deepseek-r1-fp4-tp4", "deepseek-r1-mxfp4-tp4-mtp-rocm720"])
def test_an_accuracy_case_runs_exactly_what_explain_prints(
    cli: Invoke, harness: Harness, case_id: str
) -> None:
    result = cli("cases")
    case = next(c for c in json.loads(result.stdout) if c["id"] == case_id)
    run = harness.run("run_accuracy.sh", harness.write_json("case.json", case))
    assert run.returncode == 0, run.stdout + run.stderr
    argvs, env = explained(cli, harness, case_id, "--kind", "case")
    assert recorded(harness) == argvs
    assert len(argvs) == 2
    [server] = harness.server_records()
    assert server["env"] == harness.expected_server_env(env)
