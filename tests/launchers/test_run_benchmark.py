"""scripts/run_benchmark.sh end to end against the stand-in sglang package."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from typing import Any

import pytest

from generator.core import commands
from generator.core.entry_checks import check_job
from generator.launch.results import result_line
from tests.launchers.support import (
    Harness,
    assert_valid_record,
    fixture_job,
    not_ready,
    printed_command,
    small_points,
)

SCRIPT = "run_benchmark.sh"
HOSTILE_TOKENS = [
    "$(touch pwned-dollar)",
    "`touch pwned-backtick`",
    "a b",
    "it's \"quoted\" and 'single'",
    "x; touch pwned-semicolon",
    "& touch pwned-amp |",
    "ünïcødé ✓ 模型",
    "",
    "*",
    "--flag=va lue",
    "line one\nline two",
    "\\$HOME ${HOME} $HOME",
]
NO_GPU_TOOL = "warning: neither amd-smi nor rocm-smi is here: GPU check skipped, GPU fields null"


def qwen_job(concurrencies: list[int], **point: Any) -> dict[str, Any]:
    """The fixture's OOB Qwen TP4 job (4 GPUs) with small points at these concurrencies."""
    return small_points(fixture_job("--preset", "all-qwen"), concurrencies, **point)


def bench_line(h: Harness, point_id: str) -> dict[str, Any]:
    """The result line the client appended for a point."""
    line, _ = result_line(h.logs / f"{point_id}.bench.jsonl")
    assert line is not None
    return dict(line)


def statuses(h: Harness, job: dict[str, Any]) -> list[str]:
    return [h.result(point["id"])["status"] for point in job["points"]]


def test_the_server_gets_exactly_the_job_args_and_env_and_hostile_tokens_arrive_literally(
    harness: Harness,
) -> None:
    job = qwen_job([1])
    # A model path with a space or `$(...)` is refused before anything starts
    # (test_core_entry_checks.py); the hostile tokens travel in the args and the env.
    job["model_path"] = "org/model.v2_final-x"
    job["server_args"] = ["--trust-remote-code", *HOSTILE_TOKENS]
    job["env"] = {
        "HOSTILE_CMD": "$(touch pwned-env)",
        "HOSTILE_TICKS": "`touch pwned-env-ticks`; echo x",
        "EMPTY": "",
        "MULTI_LINE": "a\nb=c",
        "HOME": "/job/home",
    }
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    [record] = harness.server_records()
    argv = commands.server_argv(check_job(job, "job"), harness.where)
    assert [harness.where.python, "-m", "sglang.launch_server", *record["argv"]] == argv
    assert record["argv"] == [
        "--model-path",
        job["model_path"],
        "--host",
        "127.0.0.1",
        "--port",
        str(harness.port),
        *job["server_args"],
    ]
    assert record["env"] == harness.expected_server_env(job["env"])
    assert record["env"]["HOME"] == "/job/home"
    printed = "\n".join(printed_command(job["env"], argv))
    assert f"] server environment additions and command:\n{printed}\n" in run.stdout
    assert sorted(p.name for p in harness.root.rglob("pwned*")) == []
    result = harness.result(job["points"][0]["id"])
    assert (result["server"], result["served_model_path"]) == (
        {"argv": argv, "env": job["env"]},
        job["model_path"],
    )


def test_five_points_share_one_server_flushed_between_points_and_run_the_declared_client(
    harness: Harness,
) -> None:
    harness.summary_file.write_text("previous step\n", encoding="utf-8")
    job = qwen_job([1, 2, 4, 8, 16], num_warmups=4)
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    assert len(harness.server_records()) == 1
    assert statuses(harness, job) == ["ok"] * 5
    server_log = (harness.logs / f"{job['id']}.server.log").read_text(encoding="utf-8")
    assert server_log.count('"POST /flush_cache HTTP/1.1" 200') == 4
    # The declared client, token for token: random token ids on /v1/completions, seed 0.
    entry = check_job(job, "job")
    clients = harness.client_records()
    assert [[harness.where.python, "-m", c["tool"], *c["argv"]] for c in clients] == [
        commands.bench_argv(entry, point, harness.where) for point in entry["points"]
    ]
    assert clients[0]["argv"][:2] == ["--backend", "sglang-oai"]
    assert "--dataset-name random-ids" in " ".join(clients[0]["argv"])
    for point in job["points"]:
        result = harness.result(point["id"])
        assert_valid_record(result)
        line = bench_line(harness, point["id"])
        assert line["request_rate"] == float("inf")
        assert result["metrics"]["total_token_throughput"] == line["total_throughput"]
        assert result["metrics"]["output_throughput_per_gpu"] == line["output_throughput"] / 4
        assert (result["validity"], result["client"]["version"]) == (
            {"valid": True, "reason": None},
            "0.5.23",
        )
        assert result["provenance"]["gpu"] == {"model": None, "count": None, "vram_gb": None}
        assert result["timings"]["download_s"] is None
    # Without amd-smi or rocm-smi: one warning line, GPU fields null.
    assert run.stdout.count(NO_GPU_TOOL) == 1
    section = (harness.results / "summary.md").read_text(encoding="utf-8")
    assert harness.summary_file.read_text(encoding="utf-8") == "previous step\n" + section
    assert section.startswith(
        f"### Benchmark: Qwen3.5-397B-A17B-FP8 TP4 (`{job['id']}`)\n"
        "\n"
        "- **Image** `rocm/atom-dev:sglang-latest`: tag -, not pinned (not resolved)\n"
        "- **Versions** SGLang `0.5.23` (commit -), ATOM -, AITER -, ROCm -\n"
        "- **GPUs** - x -, - GB each; runner - (`atom-mi355-8gpu-aac-runner`)\n"
        "- **Run** - attempt -, catalog commit `c0ffee0000000000000000000000000000000000`\n"
        "\n"
        "Server mode `sglang-atom` · server starts: 1 · model download - min · start-up "
    )
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert [row.split(" | ")[:5] for row in rows] == [
        [f"| `{job['id']}-c{c}`", "1024", "1024", str(c), "ok"] for c in (1, 2, 4, 8, 16)
    ]
    assert section in run.stdout


@pytest.mark.fault
def test_failed_incomplete_and_non_finite_points_are_invalid_and_say_why(
    harness: Harness,
) -> None:
    job = qwen_job([1, 2, 4, 8])
    overrides = {"4": {"completed": 1}, "8": {"median_ttft_ms": float("nan")}}
    run = harness.run(
        SCRIPT,
        harness.write_json("job.json", job),
        {
            "SGLANG_STANDIN_BENCH_FAIL_CONC": "2",
            "SGLANG_STANDIN_BENCH_SET": json.dumps(overrides),
            "SGLANG_STANDIN_BENCH_DROP": "total_throughput",
        },
    )

    assert run.returncode == 1, run.stdout + run.stderr
    results = [harness.result(point["id"]) for point in job["points"]]
    for result in results:
        assert_valid_record(result)
    assert [(r["status"], r["validity"]) for r in results] == [
        ("ok", {"valid": True, "reason": None}),
        ("failed", {"valid": False, "reason": "status failed"}),
        ("ok", {"valid": False, "reason": "1 of 2 requests completed"}),
        ("ok", {"valid": False, "reason": "non-finite or missing median_ttft_ms"}),
    ]
    crashed = results[1]
    assert crashed["error"].startswith("sglang.bench_serving exited with status 1:\n")
    assert "RuntimeError: standin: simulated benchmark crash at concurrency 2" in crashed["error"]
    assert results[2]["error"] == "1 of 2 requests completed"
    # The result line has no total_throughput: the total comes from the token totals.
    line = bench_line(harness, f"{job['id']}-c1")
    assert "total_throughput" not in line
    total = (line["total_input_tokens"] + line["total_output_tokens"]) / line["duration"]
    assert results[0]["metrics"]["total_token_throughput"] == total


@pytest.mark.fault
def test_a_dying_server_is_restarted_within_the_budget_then_points_are_server_died(
    harness: Harness,
) -> None:
    # Each point sends 2 generation requests; the server exits after its 3rd.
    job = qwen_job([1, 2, 4, 8, 16])
    run = harness.run(
        SCRIPT,
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_FAIL": "die-after:3", "MAX_SERVER_RESTARTS": "1"},
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert statuses(harness, job) == ["ok", "server-died", "ok", "server-died", "server-died"]
    assert len(harness.server_records()) == 2
    died = harness.result(f"{job['id']}-c2")
    assert died["error"].startswith(
        "server process exited during the point; sglang.bench_serving exited with status 1:\n"
    )
    assert died["metrics"]["completed"] is None
    assert harness.result(f"{job['id']}-c16")["error"] == (
        "server not running; restart budget exhausted (MAX_SERVER_RESTARTS=1)"
    )
    assert "server is gone: restart 1 of 1" in run.stdout


@pytest.mark.fault
def test_a_server_that_exits_at_start_gives_exit_2_with_its_log_tail(harness: Harness) -> None:
    job = qwen_job([1, 2])
    run = harness.run(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_FAIL": "exit-at-start"}
    )

    assert run.returncode == 2
    log = str(harness.logs / f"{job['id']}.server.log")
    assert f"===== last 200 lines of {log} =====" in run.stdout
    assert "standin: simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)" in run.stdout
    assert len(harness.server_records()) == 1
    assert harness.client_records() == []
    error = not_ready(
        "server process exited with status 1 before becoming ready",
        harness.logs / f"{job['id']}.server.log",
    )
    assert error.endswith("standin: simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)")
    for point in job["points"]:
        result = harness.result(point["id"])
        assert (result["status"], result["error"]) == ("failed", error)
        assert_valid_record(result)


@pytest.mark.fault
def test_a_server_that_never_becomes_ready_times_out_with_exit_2(harness: Harness) -> None:
    job = qwen_job([1])
    started = time.monotonic()
    run = harness.run(
        SCRIPT,
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_FAIL": "never-ready", "READY_TIMEOUT_S": "0.5"},
    )
    elapsed = time.monotonic() - started

    assert run.returncode == 2
    assert 0.5 <= elapsed < 30  # READY_TIMEOUT_S waited for; 30 s a bound
    result = harness.result(f"{job['id']}-c1")
    assert (result["status"], result["error"]) == (
        "failed",
        not_ready(
            "server not ready after READY_TIMEOUT_S=0.5s (last stage: /health)",
            harness.logs / f"{job['id']}.server.log",
        ),
    )
    assert "===== last 200 lines of" in run.stdout
    assert harness.client_records() == []


@pytest.mark.fault
def test_a_port_already_in_use_is_an_infrastructure_failure(harness: Harness) -> None:
    squatter = subprocess.Popen(
        [harness.where.python, "-m", "http.server", "--bind", "127.0.0.1", str(harness.port)],
        cwd=harness.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while b"HTTP" not in _probe(harness.port) and time.monotonic() < deadline:
            time.sleep(0.02)
        job = qwen_job([1])
        run = harness.run(SCRIPT, harness.write_json("job.json", job))
    finally:
        squatter.terminate()
        squatter.wait(timeout=10)

    assert run.returncode == 2
    assert harness.server_records() == []
    assert harness.result(f"{job['id']}-c1")["error"] == (
        "server did not become ready: port "
        f"{harness.port} already answers HTTP before the server was started"
    )


def _probe(port: int) -> bytes:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            return sock.recv(64)
    except OSError:
        return b""
