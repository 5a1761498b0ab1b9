"""scripts/run_benchmark.sh end to end against the stand-in sglang package."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from typing import Any

import pytest

from generator.launch import commands
from generator.launch.contract import check_job
from generator.launch.results import BENCH_METRICS

from .support import Harness, bench_job, bench_point, printed_command, running

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


def statuses(h: Harness, job: dict[str, Any]) -> list[str]:
    return [h.result(point["id"])["status"] for point in job["points"]]


def test_the_server_gets_exactly_the_job_args_and_env_and_hostile_tokens_arrive_literally(
    harness: Harness,
) -> None:
    job = bench_job("hostile", [bench_point("hostile-c1", 1)])
    job["model_path"] = "org/model with space $(touch pwned-model)"
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
    assert record["argv"] == harness.server_prefix(job["model_path"]) + job["server_args"]
    assert record["env"] == harness.expected_server_env(job["env"])
    assert record["env"]["HOME"] == "/job/home"
    printed = "\n".join(printed_command(job["env"], argv))
    assert f"] server environment additions and command:\n{printed}\n" in run.stdout
    assert sorted(p.name for p in harness.root.rglob("pwned*")) == []


def test_five_points_share_one_server_flushed_between_points_and_run_the_explained_client(
    harness: Harness,
) -> None:
    points = [bench_point(f"five-c{c}", c, num_prompts=3, num_warmups=1) for c in (1, 2, 4, 8, 16)]
    job = bench_job("five", points)
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    assert len(harness.server_records()) == 1
    assert statuses(harness, job) == ["ok"] * 5
    server_log = (harness.logs / "five.server.log").read_text(encoding="utf-8")
    assert server_log.count('"POST /flush_cache HTTP/1.1" 200') == 4
    entry = check_job(job, "job")
    assert [c["argv"] for c in harness.client_records()] == [
        commands.bench_argv(entry, point, harness.where)[3:] for point in entry["points"]
    ]
    result = harness.result("five-c2")
    raw = json.loads((harness.logs / "five-c2.bench.jsonl").read_text(encoding="utf-8"))
    wall, server_start = result.pop("wall_time_s"), result.pop("server_start_s")
    assert isinstance(wall, float) and wall > 0
    assert isinstance(server_start, float) and server_start > 0
    assert result == {
        "job_id": "five",
        "suite": "SGLang-OOB",
        "config": "five-config",
        "display": "Display five",
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "runner": "atom-mi355-8gpu-aac-runner",
        "image": "rocm/atom-dev:sglang-latest",
        "server_mode": "sglang-atom",
        "point_id": "five-c2",
        "isl": 1024,
        "osl": 512,
        "concurrency": 2,
        "random_range_ratio": 0.8,
        "num_prompts": 3,
        "num_warmups": 1,
        "estimate_minutes": None,
        "status": "ok",
        "error": None,
        "completed": 3,
        **{key: raw[key] for key in BENCH_METRICS},
    }


def test_a_bench_failure_fails_only_its_point_and_the_step_summary_shows_every_point(
    harness: Harness,
) -> None:
    harness.summary_file.write_text("previous step\n", encoding="utf-8")
    points = [bench_point(f"conc-c{c}", c) for c in (1, 2, 4)]
    for point, minutes in zip(points, (3, 4, 5), strict=True):
        point["estimate_minutes"] = minutes
    job = bench_job("conc", points, startup_minutes=35)
    run = harness.run(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_BENCH_FAIL_CONC": "2"}
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert statuses(harness, job) == ["ok", "failed", "ok"]
    assert len(harness.server_records()) == 1
    failed = harness.result("conc-c2")
    assert failed["error"].startswith("sglang.bench_serving exited with status 1:\n")
    assert "RuntimeError: standin: simulated benchmark crash at concurrency 2" in failed["error"]
    assert {key: failed[key] for key in BENCH_METRICS} == dict.fromkeys(BENCH_METRICS)

    def row(point_id: str, conc: int, estimate: int) -> str:
        res = harness.result(point_id)
        keys = [
            "request_throughput",
            "output_throughput",
            "median_ttft_ms",
            "median_tpot_ms",
            "median_itl_ms",
            "median_e2e_latency_ms",
        ]
        metrics = " | ".join("-" if res[k] is None else f"{res[k]:.2f}" for k in keys)
        return (
            f"| `{point_id}` | 1024 | 512 | {conc} | {res['status']} | {metrics}"
            f" | {res['wall_time_s'] / 60:.1f} | {estimate} |\n"
        )

    start_min = harness.result("conc-c1")["server_start_s"] / 60
    assert harness.summary_file.read_text(encoding="utf-8") == (
        "previous step\n"
        "### Benchmark: Display conc (`conc`)\n"
        "\n"
        "Image `rocm/atom-dev:sglang-latest` · runner `atom-mi355-8gpu-aac-runner`"
        f" · server starts: 1 · start-up {start_min:.1f} min (estimated 35)\n"
        "\n"
        "| Point | ISL | OSL | Conc | Status | Req/s | Output tok/s | TTFT p50 (ms) "
        "| TPOT p50 (ms) | ITL p50 (ms) | E2E p50 (ms) | Minutes | Estimated |\n"
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        + row("conc-c1", 1, 3)
        + row("conc-c2", 2, 4)
        + row("conc-c4", 4, 5)
        + "\n"
    )
    assert "| `conc-c2` | 1024 | 512 | 2 | failed | - | - | - | - | - | - |" in run.stdout


def test_a_server_dying_mid_sweep_is_restarted_once_and_completed_points_are_kept(
    harness: Harness,
) -> None:
    # Each point sends 2 generation requests; the server exits after its 5th.
    job = bench_job("die", [bench_point(f"die-p{i}", 1) for i in range(1, 6)])
    run = harness.run(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_FAIL": "die-after:5"}
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert statuses(harness, job) == ["ok", "ok", "server-died", "ok", "ok"]
    assert len(harness.server_records()) == 2
    died = harness.result("die-p3")
    assert died["error"] == "server process exited during the point; 1 of 2 requests completed"
    assert died["completed"] == 1
    assert "server is gone: restart 1 of 1" in run.stdout


def test_a_death_beyond_the_restart_budget_marks_the_remaining_points_server_died(
    harness: Harness,
) -> None:
    # The server exits right after answering each point's 2 requests.
    job = bench_job("budget", [bench_point(f"budget-p{i}", 1) for i in range(1, 5)])
    run = harness.run(
        SCRIPT,
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_FAIL": "die-after:2", "MAX_SERVER_RESTARTS": "1"},
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert statuses(harness, job) == ["ok", "ok", "server-died", "server-died"]
    assert len(harness.server_records()) == 2
    assert harness.result("budget-p4")["error"] == (
        "server not running; restart budget exhausted (MAX_SERVER_RESTARTS=1)"
    )


def test_a_server_that_exits_at_start_gives_exit_2_with_its_log_tail(harness: Harness) -> None:
    job = bench_job("crash", [bench_point("crash-c1", 1), bench_point("crash-c2", 2)])
    run = harness.run(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_FAIL": "exit-at-start"}
    )

    assert run.returncode == 2
    log = str(harness.logs / "crash.server.log")
    assert f"===== last 200 lines of {log} =====" in run.stdout
    assert "standin: simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)" in run.stdout
    assert len(harness.server_records()) == 1
    assert harness.client_records() == []
    error = "server did not become ready: server process exited with status 1 before becoming ready"
    for point in job["points"]:
        result = harness.result(point["id"])
        assert (result["status"], result["error"]) == ("failed", error)


def test_a_server_that_never_becomes_ready_times_out_with_exit_2(harness: Harness) -> None:
    job = bench_job("stuck", [bench_point("stuck-c1", 1)])
    started = time.monotonic()
    run = harness.run(
        SCRIPT,
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_FAIL": "never-ready", "READY_TIMEOUT_S": "0.5"},
    )
    elapsed = time.monotonic() - started

    assert run.returncode == 2
    assert 0.5 <= elapsed < 5
    result = harness.result("stuck-c1")
    assert (result["status"], result["error"]) == (
        "failed",
        "server did not become ready: server not ready after READY_TIMEOUT_S=0.5s "
        "(last stage: /health)",
    )
    assert "===== last 200 lines of" in run.stdout
    assert harness.client_records() == []


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
        job = bench_job("busy", [bench_point("busy-c1", 1)])
        run = harness.run(SCRIPT, harness.write_json("job.json", job))
    finally:
        squatter.terminate()
        squatter.wait(timeout=10)

    assert run.returncode == 2
    assert harness.server_records() == []
    assert harness.result("busy-c1")["error"] == (
        "server did not become ready: port "
        f"{harness.port} already answers HTTP before the server was started"
    )


def test_sigterm_mid_sweep_exits_143_and_leaves_no_process_behind(harness: Harness) -> None:
    job = bench_job("cancel", [bench_point("cancel-c1", 1), bench_point("cancel-c2", 2)])
    proc = harness.start(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_BENCH_SLEEP_S": "30"}
    )
    try:
        pids = harness.wait_for_pids(3)  # server, its scheduler, the first bench_serving
        assert running(pids) == pids
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        stdout, _ = proc.communicate(timeout=20)
        elapsed = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    assert proc.returncode == 128 + signal.SIGTERM
    assert elapsed < 5
    assert "received SIGTERM: stopping" in stdout
    assert running(harness.pids()) == []
    [server] = harness.server_records()
    [client] = harness.client_records()
    for pid in (server["pid"], client["pid"]):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_an_invalid_job_exits_2_before_starting_a_server(harness: Harness) -> None:
    job = bench_job("invalid", [bench_point("invalid-c1", 1)])
    job["env"] = {"NOT-A-NAME": "1"}
    path = harness.write_json("job.json", job)
    run = harness.run(SCRIPT, path)

    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr == (
        f"run_benchmark.sh: error: {path}: env key 'NOT-A-NAME' is not a valid variable name\n"
    )
    assert harness.server_records() == []


@pytest.mark.parametrize(
    ("knob", "value"),
    [("READY_TIMEOUT_S", "soon"), ("SGLANG_PORT", "30000x"), ("MAX_SERVER_RESTARTS", "-1")],
)
def test_an_invalid_knob_exits_2_before_starting_a_server(
    harness: Harness, knob: str, value: str
) -> None:
    job = bench_job("knob", [bench_point("knob-c1", 1)])
    run = harness.run(SCRIPT, harness.write_json("job.json", job), {knob: value})

    assert (run.returncode, run.stdout) == (2, "")
    assert run.stderr.startswith(f"run_benchmark.sh: error: {knob} must be ")
    assert run.stderr.count("\n") == 1
    assert harness.server_records() == []
    assert not harness.results.exists()


def _probe(port: int) -> bytes:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            return sock.recv(64)
    except OSError:
        return b""
