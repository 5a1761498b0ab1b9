"""What the launcher runs is what `sglang-ci explain` prints, token for token: the server,
every client and the evaluator, recorded by the stand-ins, with the models in a model
cache (MODEL_CACHE) that holds complete snapshots of them."""

from __future__ import annotations

import json
import shlex
from typing import Any

import pytest

from generator.core import commands
from generator.core.entry_checks import check_case, check_job
from tests.launchers.support import CATALOG_SGLANG, Harness, complete_snapshot

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import ServerEntry
    from tests.conftest import Invoke

MORI = ("--mode", "sglang-mori", "--image", "lmsysorg/sglang-rocm:x")
# The stand-in clients record the module they stand for and their own arguments; the
# few-shot evaluation records the argv of the script that calls run_eval.
MODULES = ("sglang.bench_serving",)


def explained(cli: Invoke, harness: Harness, *args: str) -> tuple[list[list[str]], dict[str, str]]:
    """The command lines and the server env explain prints, with its variables set to the
    harness's values (the only parts explain leaves to the machine)."""
    result = cli("explain", *args)
    assert result.exit_code == 0, result.stderr
    where = harness.where
    assert where.model_cache is not None
    text = (
        result.stdout.replace('"${PYTHON}"', shlex.quote(where.python))
        .replace('"${SGLANG_PORT}"', where.port)
        .replace('"${LOG_DIR}"', shlex.quote(where.logs))
        .replace('"${MODEL_CACHE}"', shlex.quote(where.model_cache))
        .replace('"${SGLANG_CI_ROOT}"', shlex.quote(where.root))
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
        if tool == "python":
            head = [harness.where.python]
        else:
            head = [harness.where.python, "-m", tool] if tool in MODULES else [tool]
        out.append([*head, *client["argv"]])
    return out


def cache_models(harness: Harness, tmp_path: Path, entry: ServerEntry) -> None:
    """A model cache holding a complete snapshot of every model of `entry`."""
    harness.model_cache = tmp_path / "cache"
    for model in commands.models(entry, harness.where):
        complete_snapshot(harness.model_cache, model)


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
    cli: Invoke,
    harness: Harness,
    tmp_path: Path,
    selection: tuple[str, ...],
    explain_args: tuple[str, ...],
) -> None:
    job = job_of(cli, *selection)
    cache_models(harness, tmp_path, check_job(job, "job"))
    run = harness.run("run_benchmark.sh", harness.write_json("job.json", job), CATALOG_SGLANG)
    assert run.returncode == 0, run.stdout + run.stderr
    assert harness.hf_records() == []
    served = commands.models(check_job(job, "job"), harness.where)[job["model_path"]]
    assert served == f"{tmp_path}/cache/{job['model_path']}"
    played = CATALOG_SGLANG["SGLANG_STANDIN_VERSION"]
    argvs, env = explained(cli, harness, job["id"], *explain_args, "--sglang", played)
    assert recorded(harness) == argvs
    assert len(argvs) == 1 + len(job["points"])
    [server] = harness.server_records()
    assert server["env"] == {**harness.expected_server_env(env), **CATALOG_SGLANG}
    # The launcher named the flags as the release its version probe found names them.
    renamed = {flag: name for flag, name, *_ in job.get("server_spellings", [])}
    assert sorted(renamed.items()) == (
        [("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode")] if "--mode" in explain_args else []
    )
    assert all(flag not in server["argv"] for flag in renamed)
    assert all(name in server["argv"] for name in renamed.values())


@pytest.mark.parametrize("case_id", ["deepseek-r1-fp4-tp4", "deepseek-r1-mxfp4-tp4-mtp-rocm720"])
def test_an_accuracy_case_runs_exactly_what_explain_prints(
    cli: Invoke, harness: Harness, tmp_path: Path, case_id: str
) -> None:
    result = cli("cases")
    case = next(c for c in json.loads(result.stdout) if c["id"] == case_id)
    cache_models(harness, tmp_path, check_case(case, "case"))
    run = harness.run("run_accuracy.sh", harness.write_json("case.json", case))
    assert run.returncode == 0, run.stdout + run.stderr
    assert harness.hf_records() == []
    served = commands.models(check_case(case, "case"), harness.where)[case["model_path"]]
    assert served == f"{tmp_path}/cache/{case['model_path']}"
    argvs, env = explained(cli, harness, case_id, "--kind", "case")
    assert recorded(harness) == argvs
    assert len(argvs) == 2
    [server] = harness.server_records()
    assert server["env"] == harness.expected_server_env(env)
