"""The fault matrix: each test injects one fault through the stand-ins and checks the exit
code, the records (against the schema), the step summary and that no process is left (the
`harness` fixture fails a test when a pid a stand-in wrote is still running).
docs/reliability.md lists every test marked `fault`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

import pytest

from generator.launch.sink import FALLBACK_PREFIX
from tests.launchers.support import (
    RUN_TIMEOUT_S,
    STANDIN,
    Harness,
    assert_valid_record,
    fixture_case,
    fixture_job,
    running,
    small_points,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.fault

BENCHMARK = "run_benchmark.sh"
ACCURACY = "run_accuracy.sh"
LM_EVAL_CASE = "deepseek-r1-fp8-tp4"
FEW_SHOT_CASE = "deepseek-r1-mxfp4-tp4-mtp-rocm720"
# Bounds, never the thing measured: the launcher finishes within a minute with a point
# that hangs; a server that ignores SIGTERM is gone within a minute. A point or evaluator
# that must get somewhere before its timeout (its handler installed, its child started)
# has seconds, and one that runs has minutes: the tests pass on a machine whose cores are
# busy with other work.
HANG_BOUND_S = 60


def qwen_job(concurrencies: list[int], **point: Any) -> dict[str, Any]:
    return small_points(fixture_job("--preset", "all-qwen"), concurrencies, **point)


def records(h: Harness, job: dict[str, Any], folder: Path | None = None) -> list[dict[str, Any]]:
    """Every point's record, each checked against the schema."""
    out = []
    for point in job["points"]:
        path = (folder or h.results) / f"{point['id']}.json"
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        assert_valid_record(data)
        out.append(data)
    return out


def summary_rows(h: Harness) -> list[list[str]]:
    """The point rows of the step summary: id, ISL, OSL, concurrency, status."""
    text = h.summary_file.read_text(encoding="utf-8")
    return [line.split(" | ")[:5] for line in text.splitlines() if line.startswith("| `")]


def no_launcher_failure(stderr: str) -> None:
    assert "unexpected error" not in stderr
    assert "Traceback" not in stderr


def stop(proc: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


# --- timeouts ---------------------------------------------------------------------------


def test_a_client_that_hangs_at_one_point_times_out_and_the_sweep_goes_on(
    harness: Harness,
) -> None:
    # The client at concurrency 2 hangs: its point times out at 1 min x 0.02 = 1.2 s (it
    # hangs wherever it is then); the others have 100 min x 0.02 = 120 s, a bound.
    job = qwen_job([1, 2, 4], estimate_minutes=100)
    job["points"][1]["estimate_minutes"] = 1
    job["point_timeout_factor"] = 0.02
    started = time.monotonic()
    run = harness.run(
        BENCHMARK, harness.write_json("job.json", job), {"SGLANG_STANDIN_BENCH_HANG": "2"}
    )
    elapsed = time.monotonic() - started

    assert run.returncode == 1, run.stdout + run.stderr
    assert elapsed < HANG_BOUND_S
    ok, hung, after = records(harness, job)
    assert [ok["status"], hung["status"], after["status"]] == ["ok", "timeout", "ok"]
    assert hung["error"] == (
        "sglang.bench_serving ran out of its 1.2s (estimate 1 min x point_timeout_factor 0.02)"
    )
    assert hung["validity"] == {"valid": False, "reason": "status timeout"}
    assert 1.2 <= hung["timings"]["wall_time_s"] < HANG_BOUND_S
    assert len(harness.server_records()) == 1  # the server still answered: no restart
    assert [row[3:] for row in summary_rows(harness)] == [
        ["1", "ok"],
        ["2", "timeout (invalid)"],
        ["4", "ok"],
    ]


def test_a_server_that_stops_answering_is_replaced_after_a_point_times_out(
    harness: Harness,
) -> None:
    # Each point sends 2 requests; once the server has answered 2 it fails /health and
    # hangs on every later request. The points time out at their estimate times the job's
    # factor: 2 min x 0.004 = 0.48 s for the second point, which hangs whenever its client
    # gets there, and 500 min x 0.004 = 120 s, a bound, for the two that are served.
    job = qwen_job([1, 2, 4], estimate_minutes=500)
    job["points"][1]["estimate_minutes"] = 2
    job["point_timeout_factor"] = 0.004
    run = harness.run(
        BENCHMARK, harness.write_json("job.json", job), {"SGLANG_STANDIN_FAIL": "wedge-after:2"}
    )

    assert run.returncode == 1, run.stdout + run.stderr
    ok, hung, after = records(harness, job)
    assert [ok["status"], hung["status"], after["status"]] == ["ok", "timeout", "ok"]
    assert hung["error"] == (
        "sglang.bench_serving ran out of its 0.48s (estimate 2 min x point_timeout_factor 0.004)"
    )
    assert len(harness.server_records()) == 2
    assert "the server does not answer /health after a point ran out of time" in run.stdout
    assert "server starts: 2" in harness.summary_file.read_text(encoding="utf-8")


def test_an_evaluator_that_hangs_and_ignores_sigterm_is_killed_at_its_timeout(
    harness: Harness,
) -> None:
    # The evaluator must have ignored SIGTERM and started its child before its timeout:
    # 3 s, where it takes a fraction of one: a generous bound on a busy machine.
    case = fixture_case(LM_EVAL_CASE)
    case["eval_timeout_minutes"] = 0.05
    run = harness.run(
        ACCURACY,
        harness.write_json("case.json", case),
        {"SGLANG_STANDIN_EVAL_HANG": "1", "SERVER_STOP_GRACE_S": "0.5"},
    )

    assert run.returncode == 2, run.stdout + run.stderr
    record = harness.result(case["id"])
    assert_valid_record(record)
    assert (record["status"], record["error"]) == ("timeout", "the evaluation ran out of its 3s")
    assert "standin: lm_eval hangs" in run.stdout  # it got there before its timeout
    assert "evaluator still running after 0.5s: SIGKILL" in run.stdout
    assert len(harness.pids()) == 4  # server, scheduler, lm_eval and its setsid child
    assert "| ⏱️ timeout |" in harness.summary_file.read_text(encoding="utf-8")


# --- signals and stopping ---------------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_mid_sweep_writes_the_summary_and_cancelled_records_and_exits_128_plus_it(
    harness: Harness, signum: signal.Signals
) -> None:
    job = qwen_job([1, 2, 4])
    proc = harness.start(
        BENCHMARK, harness.write_json("job.json", job), {"SGLANG_STANDIN_BENCH_HANG": "2"}
    )
    harness.wait_for_pids(4)  # server, scheduler, the first client, the hanging second
    proc.send_signal(signum)
    stdout, stderr = stop(proc)

    assert proc.returncode == 128 + signum, stdout + stderr
    assert running(harness.pids()) == []
    done, *cancelled = records(harness, job)
    assert done["status"] == "ok"
    assert [(r["status"], r["error"]) for r in cancelled] == [
        ("cancelled", f"cancelled by {signum.name}")
    ] * 2
    assert [row[4] for row in summary_rows(harness)] == [
        "ok",
        "cancelled (invalid)",
        "cancelled (invalid)",
    ]
    assert stdout.index("### Benchmark:") < stdout.index(f"received {signum.name}: stopping")


def test_sigint_during_the_evaluation_writes_a_cancelled_record_and_exits_130(
    harness: Harness,
) -> None:
    case = fixture_case(LM_EVAL_CASE)
    proc = harness.start(
        ACCURACY, harness.write_json("case.json", case), {"SGLANG_STANDIN_EVAL_SLEEP_S": "30"}
    )
    harness.wait_for_pids(3)  # server, its scheduler, lm_eval
    proc.send_signal(signal.SIGINT)
    stdout, stderr = stop(proc)

    assert proc.returncode == 128 + signal.SIGINT, stdout + stderr
    assert running(harness.pids()) == []
    record = harness.result(case["id"])
    assert_valid_record(record)
    assert (record["status"], record["error"], record["metrics"]["score"]) == (
        "cancelled",
        "cancelled by SIGINT",
        None,
    )
    assert "| ⏹️ cancelled |" in harness.summary_file.read_text(encoding="utf-8")


def test_a_server_that_ignores_sigterm_is_killed_after_the_grace_period(
    harness: Harness,
) -> None:
    # As GitHub cancels a job: SIGINT, then SIGTERM (here while the launcher is stopping).
    grace = 0.5
    term_file = harness.root / "server-sigterm-times"
    job = qwen_job([1, 2])
    proc = harness.start(
        BENCHMARK,
        harness.write_json("job.json", job),
        {
            "SGLANG_STANDIN_BENCH_HANG": "1",
            "SGLANG_STANDIN_IGNORE_TERM": str(term_file),
            "SERVER_STOP_GRACE_S": f"{grace:g}",
        },
    )
    try:
        harness.wait_for_pids(3)  # server, scheduler, the hanging client
        # The client writes its pid, then its record: wait for both.
        harness.wait_until(lambda: len(harness.client_records()) == 1, "client record")
        client_pids = {client["pid"] for client in harness.client_records()}
        server_pids = [pid for pid in harness.pids() if pid not in client_pids]
        proc.send_signal(signal.SIGINT)
        while not term_file.exists() and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)  # the runner's second signal, during the stop
        while running(server_pids) and proc.poll() is None:
            time.sleep(0.01)
        gone = time.time()
    finally:
        stdout, stderr = stop(proc)

    assert proc.returncode == 128 + signal.SIGINT, stdout + stderr
    first_sigterm = float(term_file.read_text(encoding="utf-8").split()[0])
    assert len(server_pids) == 2
    assert gone - first_sigterm < HANG_BOUND_S  # a bound: the SIGKILL is what is checked
    assert "stopping every process the launcher started: SIGTERM, 0.5s grace" in stdout
    assert "every process the launcher started still running after 0.5s: SIGKILL" in stdout
    assert running(harness.pids()) == []
    assert [r["status"] for r in records(harness, job)] == ["cancelled", "cancelled"]
    assert len(summary_rows(harness)) == 2


@pytest.mark.parametrize(
    ("setsid", "env", "statuses"),
    [
        ("child,daemon", {}, ["ok", "ok"]),
        ("child", {"SGLANG_STANDIN_FAIL": "die-after:3"}, ["ok", "server-died"]),
    ],
    ids=["setsid-child-and-orphaned-daemon", "setsid-child-of-a-dying-server"],
)
def test_a_server_descendant_that_leaves_the_process_group_is_stopped(
    harness: Harness, setsid: str, env: dict[str, str], statuses: list[str]
) -> None:
    job = qwen_job([1, 2])
    run = harness.run(
        BENCHMARK,
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_SETSID": setsid, "MAX_SERVER_RESTARTS": "0", **env},
    )

    assert run.returncode == (0 if statuses == ["ok", "ok"] else 1), run.stdout + run.stderr
    assert [r["status"] for r in records(harness, job)] == statuses
    # server, scheduler, the lingering processes, and a client per point it reached
    lingering = len(setsid.split(","))
    assert len(harness.pids()) == 2 + lingering + len(harness.client_records())
    assert running(harness.pids()) == []


# --- the server on the port -------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "reason"),
    [
        (None, "is listened on by pid {pid} (python"),
        ("other-org/other-model", "is served by a server of model 'other-org/other-model'"),
    ],
    ids=["same-model", "other-model"],
)
def test_a_foreign_server_that_takes_the_port_is_never_benchmarked(
    harness: Harness, model: str | None, reason: str
) -> None:
    job = qwen_job([1, 2])
    proc = harness.start(
        BENCHMARK,
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_FAIL": "slow-start:30"},  # ours has not bound the port yet
    )
    harness.wait_for_pids(1)  # our server started: the check before the start is done
    foreign = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "sglang.launch_server",
            "--model-path",
            model or job["model_path"],
            "--port",
            str(harness.port),
        ],
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(STANDIN)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        stdout, stderr = stop(proc)
        foreign_alive = foreign.poll() is None
    finally:
        os.killpg(foreign.pid, signal.SIGKILL)
        foreign.wait()

    assert proc.returncode == 2, stdout + stderr
    assert foreign_alive  # never stopped: it is not ours
    assert harness.client_records() == []
    for record in records(harness, job):
        assert record["status"] == "failed"
        assert record["validity"]["reason"].startswith("infrastructure error: port ")
        assert reason.format(pid=foreign.pid) in record["error"]
    assert "another server" in stdout or "not by the server this launcher started" in stdout


# --- the server and the evaluation ------------------------------------------------------


def test_a_server_that_dies_during_the_evaluation_is_an_infrastructure_error(
    harness: Harness,
) -> None:
    # The few-shot evaluation answers a failed request wrong: on its own it would fail the
    # gate (exit 1) with a third of the questions answered.
    case = fixture_case(FEW_SHOT_CASE)
    run = harness.run(
        ACCURACY, harness.write_json("case.json", case), {"SGLANG_STANDIN_FAIL": "die-after:1"}
    )

    assert run.returncode == 2, run.stdout + run.stderr
    record = harness.result(case["id"])
    assert_valid_record(record)
    reason = "the server exited with status 1 during the evaluation"
    assert (record["status"], record["error"], record["validity"]) == (
        "error",
        f"infrastructure: {reason}",
        {"valid": False, "reason": f"infrastructure error: {reason}"},
    )
    assert "| ⚠️ error |" in harness.summary_file.read_text(encoding="utf-8")


# --- where the results go ---------------------------------------------------------------


def fallback(h: Harness) -> Path:
    [folder] = (h.root / "runner-temp").glob(f"{FALLBACK_PREFIX}*")
    return folder


@pytest.mark.parametrize("script", [ACCURACY, BENCHMARK])
def test_an_unwritable_results_dir_exits_2_with_the_records_in_a_fallback(
    harness: Harness, script: str
) -> None:
    blocker = harness.root / "not-a-directory"
    blocker.write_text("a file where RESULTS_DIR should be\n", encoding="utf-8")
    (harness.root / "runner-temp").mkdir()
    env = {
        "RESULTS_DIR": str(blocker / "results"),
        "RUNNER_TEMP": str(harness.root / "runner-temp"),
    }
    if script == ACCURACY:
        entry = fixture_case(LM_EVAL_CASE)
        ids = [entry["id"]]
    else:
        entry = qwen_job([1, 2])
        ids = [p["id"] for p in entry["points"]]
    run = harness.run(script, harness.write_json("entry.json", entry), env)

    assert run.returncode == 2, run.stdout + run.stderr
    assert harness.server_records() == []
    folder = fallback(harness)
    assert f"RESULTS_DIR {blocker / 'results'} cannot be written" in run.stderr
    assert str(folder) in run.stderr
    for name in ids:
        record = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        assert_valid_record(record)
        assert record["validity"]["reason"].startswith("infrastructure error: RESULTS_DIR ")
    step = harness.summary_file.read_text(encoding="utf-8")
    assert f"every record is in `{folder}`" in step
    assert (folder / "summary.md").read_text(encoding="utf-8") == step


def test_a_results_dir_that_fills_up_mid_sweep_keeps_every_record_in_the_fallback(
    harness: Harness,
) -> None:
    job = qwen_job([1, 2, 4])
    harness.results.mkdir()
    (harness.root / "runner-temp").mkdir()
    # The second point's record is written through its temporary file: a full disk.
    (harness.results / f"{job['points'][1]['id']}.json.tmp").symlink_to("/dev/full")
    run = harness.run(
        BENCHMARK,
        harness.write_json("job.json", job),
        {"RUNNER_TEMP": str(harness.root / "runner-temp")},
    )

    assert run.returncode == 2, run.stdout + run.stderr
    folder = fallback(harness)
    assert [r["status"] for r in records(harness, job, folder)] == ["ok", "ok", "ok"]
    assert "No space left on device" in run.stderr
    assert str(folder) in run.stderr
    step = harness.summary_file.read_text(encoding="utf-8")
    assert f"every record is in `{folder}`" in step
    assert len(summary_rows(harness)) == 3


# --- malformed output -------------------------------------------------------------------

MALFORMED_POINTS = {
    "missing": "wrote no usable result line: ",
    "empty": "wrote no usable result line: ",
    "garbage": "is not JSON (",
    "non-utf8": "is not UTF-8 (byte ",
    "huge": "is not JSON (",
    "nested": "is nested too deeply to read",
    "list": "is not a JSON object",
    "negative": "result line: output_throughput -5.0 is negative",
    "string": "result line: median_ttft_ms '12.5' is not a number",
    "completed-float": "result line: completed 2.5 is not a whole number",
    "no-completed": "result line has no 'completed' count",
}


def test_malformed_client_output_fails_its_point_with_a_reason_never_a_traceback(
    harness: Harness,
) -> None:
    modes = list(MALFORMED_POINTS)
    job = qwen_job(list(range(1, len(modes) + 1)))
    spoiled = {str(c): mode for c, mode in enumerate(modes, start=1)}
    run = harness.run(
        BENCHMARK,
        harness.write_json("job.json", job),
        {"SGLANG_STANDIN_BENCH_OUTPUT": json.dumps(spoiled)},
    )

    assert run.returncode == 1, run.stdout + run.stderr
    no_launcher_failure(run.stderr)
    for mode, record in zip(modes, records(harness, job), strict=True):
        assert record["status"] == "failed", mode
        assert MALFORMED_POINTS[mode] in record["error"], (mode, record["error"])
        assert len(record["error"]) < 1000, mode
    assert len(summary_rows(harness)) == len(modes)
    assert max(len(line) for line in run.stdout.splitlines()) < 3000  # huge lines cut


@pytest.mark.parametrize(
    ("case_id", "env", "reason"),
    [
        (FEW_SHOT_CASE, {"SGLANG_STANDIN_GSM8K_ACCURACY": "1.2.3"}, "no finite accuracy (None)"),
        (LM_EVAL_CASE, {"SGLANG_STANDIN_LMEVAL_RESULTS": "non-utf8"}, "is not UTF-8 (byte "),
        (LM_EVAL_CASE, {"SGLANG_STANDIN_LMEVAL_SCORE": "1.5"}, "score 1.5 is outside 0 to 1"),
    ],
    ids=["accuracy-1.2.3", "results-not-utf8", "score-out-of-range"],
)
def test_malformed_evaluator_output_is_an_error_with_a_reason(
    harness: Harness, case_id: str, env: dict[str, str], reason: str
) -> None:
    case = fixture_case(case_id)
    run = harness.run(ACCURACY, harness.write_json("case.json", case), env)

    assert run.returncode == 2, run.stdout + run.stderr
    no_launcher_failure(run.stderr)
    record = harness.result(case["id"])
    assert_valid_record(record)
    assert record["status"] == "error"
    assert reason in record["error"]
    assert "| ⚠️ error |" in harness.summary_file.read_text(encoding="utf-8")
