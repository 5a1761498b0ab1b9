"""scripts/run_benchmark.sh end to end against the stand-in sglang package."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from typing import Any

import pytest

from .support import Harness, bench_job, bench_point, printed_command, running

SCRIPT = "run_benchmark.sh"
BENCH_METRICS = (
    "request_throughput",
    "input_throughput",
    "output_throughput",
    "mean_ttft_ms",
    "median_ttft_ms",
    "p99_ttft_ms",
    "mean_tpot_ms",
    "median_tpot_ms",
    "p99_tpot_ms",
    "mean_itl_ms",
    "median_itl_ms",
    "p99_itl_ms",
    "mean_e2e_latency_ms",
    "median_e2e_latency_ms",
    "p99_e2e_latency_ms",
)
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


def test_server_receives_exactly_the_job_server_args_and_env(harness: Harness) -> None:
    job = bench_job("fidelity", [bench_point("fidelity-c1", 1)])
    job["env"] = {"SGLANG_USE_AITER": "1", "SGLANG_DEFAULT_SERVER_ARGS": "", "HOME": "/job/home"}
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    [record] = harness.server_records()
    argv = harness.server_prefix(job["model_path"]) + job["server_args"]
    assert record["argv"] == argv
    assert record["env"] == harness.expected_server_env(job["env"])
    assert record["env"]["HOME"] == "/job/home"
    python = harness.base_env()["PYTHON"]
    expected_lines = printed_command(job["env"], [python, "-m", "sglang.launch_server", *argv])
    lines = run.stdout.splitlines()
    start = lines.index(expected_lines[0])
    assert lines[start : start + len(expected_lines)] == expected_lines


def test_hostile_argv_and_env_tokens_arrive_literally_and_nothing_is_executed(
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
    }
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    [record] = harness.server_records()
    assert record["argv"] == harness.server_prefix(job["model_path"]) + job["server_args"]
    assert record["env"] == harness.expected_server_env(job["env"])
    assert sorted(p.name for p in harness.root.rglob("pwned*")) == []


def test_a_job_with_five_points_starts_the_server_once_and_flushes_between_points(
    harness: Harness,
) -> None:
    points = [bench_point(f"five-c{c}", c) for c in (1, 2, 4, 8, 16)]
    job = bench_job("five", points)
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    assert len(harness.server_records()) == 1
    assert statuses(harness, job) == ["ok"] * 5
    server_log = (harness.logs / "five.server.log").read_text(encoding="utf-8")
    assert server_log.count('"POST /flush_cache HTTP/1.1" 200') == 4


def test_bench_serving_gets_the_real_flag_names_for_each_point(harness: Harness) -> None:
    job = bench_job("flags", [bench_point("flags-c4", 4, num_prompts=40, num_warmups=8)])
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    [client] = harness.client_records()
    assert client["tool"] == "sglang.bench_serving"
    assert client["argv"] == [
        "--backend",
        "sglang",
        "--host",
        "127.0.0.1",
        "--port",
        str(harness.port),
        "--dataset-name",
        "random",
        "--random-input-len",
        "1024",
        "--random-output-len",
        "512",
        "--random-range-ratio",
        "0.8",
        "--num-prompts",
        "40",
        "--warmup-requests",
        "8",
        "--max-concurrency",
        "4",
        "--request-rate",
        "inf",
        "--output-file",
        str(harness.logs / "flags-c4.bench.jsonl"),
    ]


def test_a_point_result_carries_the_cell_identity_and_the_bench_serving_metrics(
    harness: Harness,
) -> None:
    job = bench_job("fields", [bench_point("fields-c2", 2, num_prompts=3, num_warmups=1)])
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 0, run.stdout + run.stderr
    result = harness.result("fields-c2")
    raw = json.loads((harness.logs / "fields-c2.bench.jsonl").read_text(encoding="utf-8"))
    wall, server_start = result.pop("wall_time_s"), result.pop("server_start_s")
    assert isinstance(wall, float) and wall > 0
    assert isinstance(server_start, float) and server_start > 0
    assert result == {
        "job_id": "fields",
        "suite": "SGLang-OOB",
        "config": "fields-config",
        "display": "Display fields",
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "runner": "atom-mi355-8gpu-aac-runner",
        "image": "rocm/atom-dev:sglang-latest",
        "server_mode": "sglang-atom",
        "point_id": "fields-c2",
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
        {"SGLANG_STANDIN_FAIL": "never-ready", "READY_TIMEOUT_S": "2"},
    )
    elapsed = time.monotonic() - started

    assert run.returncode == 2
    assert 2 <= elapsed < 15
    result = harness.result("stuck-c1")
    assert result["status"] == "failed"
    assert result["error"] == (
        "server did not become ready: server not ready after READY_TIMEOUT_S=2s "
        "(last stage: /health)"
    )
    assert "===== last 200 lines of" in run.stdout
    assert harness.client_records() == []


def test_a_slow_starting_server_is_waited_for_and_its_start_time_recorded(
    harness: Harness,
) -> None:
    job = bench_job("slow", [bench_point("slow-c1", 1)])
    run = harness.run(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_FAIL": "slow-start:1"}
    )

    assert run.returncode == 0, run.stdout + run.stderr
    result = harness.result("slow-c1")
    assert result["status"] == "ok"
    assert 1.0 <= result["server_start_s"] < 10.0


@pytest.mark.parametrize(
    ("knob", "value"),
    [("READY_TIMEOUT_S", "soon"), ("SGLANG_PORT", "30000x"), ("MAX_SERVER_RESTARTS", "-1")],
)
def test_an_invalid_knob_exits_2_before_starting_a_server(
    harness: Harness, knob: str, value: str
) -> None:
    job = bench_job("knob", [bench_point("knob-c1", 1)])
    run = harness.run(SCRIPT, harness.write_json("job.json", job), {knob: value})

    assert run.returncode == 2
    assert knob in run.stderr
    assert harness.server_records() == []


def test_a_server_dying_mid_sweep_is_restarted_once_and_completed_points_are_kept(
    harness: Harness,
) -> None:
    # Each point sends 2 generation requests; the server exits after its 5th.
    points = [bench_point(f"die-p{i}", 1) for i in range(1, 6)]
    job = bench_job("die", points)
    run = harness.run(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_FAIL": "die-after:5"}
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert statuses(harness, job) == ["ok", "ok", "server-died", "ok", "ok"]
    assert len(harness.server_records()) == 2
    died = harness.result("die-p3")
    assert died["error"] == "server process exited during the point; 1 of 2 requests completed"
    assert died["completed"] == 1


def test_a_second_death_beyond_the_restart_budget_marks_the_rest_server_died(
    harness: Harness,
) -> None:
    # The server exits right after answering each point's 2 requests.
    points = [bench_point(f"budget-p{i}", 1) for i in range(1, 5)]
    job = bench_job("budget", points)
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


def test_a_bench_failure_at_one_concurrency_fails_only_that_point(harness: Harness) -> None:
    job = bench_job("conc", [bench_point(f"conc-c{c}", c) for c in (1, 2, 4)])
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


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_to_the_launcher_mid_sweep_leaves_no_process_behind(
    harness: Harness, sig: signal.Signals
) -> None:
    job = bench_job("cancel", [bench_point("cancel-c1", 1), bench_point("cancel-c2", 2)])
    proc = harness.start(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_BENCH_SLEEP_S": "30"}
    )
    try:
        pids = harness.wait_for_pids(3)  # server, its scheduler, the first bench_serving
        assert running(pids) == pids
        started = time.monotonic()
        proc.send_signal(sig)
        proc.communicate(timeout=20)
        elapsed = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    assert proc.returncode == 128 + sig.value
    assert elapsed < 5
    assert running(harness.pids()) == []
    # The launcher's own children (server, bench_serving) are stopped and reaped.
    [server] = harness.server_records()
    [client] = harness.client_records()
    assert client["tool"] == "sglang.bench_serving"
    for pid in (server["pid"], client["pid"]):
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_step_summary_gets_a_markdown_table_of_every_point(harness: Harness) -> None:
    harness.summary_file.write_text("previous step\n", encoding="utf-8")
    points = [bench_point("summary-c1", 1), bench_point("summary-c2", 2)]
    points[0]["estimate_minutes"], points[1]["estimate_minutes"] = 3, 4
    job = bench_job("summary", points, startup_minutes=35)
    run = harness.run(
        SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_BENCH_FAIL_CONC": "2"}
    )

    assert run.returncode == 1
    ok, failed = harness.result("summary-c1"), harness.result("summary-c2")
    metrics = " | ".join(
        f"{ok[key]:.2f}"
        for key in (
            "request_throughput",
            "output_throughput",
            "median_ttft_ms",
            "median_tpot_ms",
            "median_itl_ms",
            "median_e2e_latency_ms",
        )
    )
    assert (ok["estimate_minutes"], failed["estimate_minutes"]) == (3, 4)
    assert ok["server_start_s"] == failed["server_start_s"]
    assert harness.summary_file.read_text(encoding="utf-8") == (
        "previous step\n"
        "### Benchmark: Display summary (`summary`)\n"
        "\n"
        "Image `rocm/atom-dev:sglang-latest` · runner `atom-mi355-8gpu-aac-runner`"
        f" · server starts: 1 · start-up {ok['server_start_s'] / 60:.1f} min (estimated 35)\n"
        "\n"
        "| Point | ISL | OSL | Conc | Status | Req/s | Output tok/s | TTFT p50 (ms) "
        "| TPOT p50 (ms) | ITL p50 (ms) | E2E p50 (ms) | Minutes | Estimated |\n"
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        f"| `summary-c1` | 1024 | 512 | 1 | ok | {metrics} | {ok['wall_time_s'] / 60:.1f} | 3 |\n"
        "| `summary-c2` | 1024 | 512 | 2 | failed | - | - | - | - | - | - "
        f"| {failed['wall_time_s'] / 60:.1f} | 4 |\n"
        "\n"
    )


def test_an_invalid_job_exits_2_before_starting_a_server(harness: Harness) -> None:
    job = bench_job("invalid", [bench_point("invalid-c1", 1)])
    job["env"] = {"NOT-A-NAME": "1"}
    run = harness.run(SCRIPT, harness.write_json("job.json", job))

    assert run.returncode == 2
    assert "env key 'NOT-A-NAME' is not a valid variable name" in run.stderr
    assert harness.server_records() == []


def test_a_port_already_in_use_is_an_infrastructure_failure(harness: Harness) -> None:
    squatter = subprocess.Popen(
        [
            harness.base_env()["PYTHON"],
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            str(harness.port),
        ],
        cwd=harness.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while b"200" not in _probe(harness.port) and time.monotonic() < deadline:
            time.sleep(0.05)
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


def _probe(port: int) -> bytes:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            return sock.recv(64)
    except OSError:
        return b""
