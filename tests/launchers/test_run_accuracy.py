"""scripts/run_accuracy.sh end to end against the stand-in sglang and lm_eval packages."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from generator.launch import commands
from generator.launch.contract import check_case

from .support import Harness, printed_command, running

SCRIPT = "run_accuracy.sh"
LM_EVAL = {
    "kind": "lm-eval",
    "task": "gsm8k",
    "model": "local-completions",
    "num_fewshot": 3,
    "metric": "exact_match,flexible-extract",
    "num_concurrent": 64,
}
FEW_SHOT = {
    "kind": "sglang-few-shot-gsm8k",
    "num_shots": 5,
    "num_questions": 1319,
    "parallel": 1319,
}


def accuracy_case(case_id: str, evaluator: dict[str, Any], **extra: Any) -> dict[str, Any]:
    case: dict[str, Any] = {
        "id": case_id,
        "name": f"Name {case_id}",
        "suite": "atom",
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "server_args": ["--trust-remote-code", "--tp", "4", "a b", "$(touch pwned)"],
        "env": {"SGLANG_USE_AITER": "1", "EMPTY": ""},
        "runner": "linux-atom-mi35x-4",
        "levels": ["nightly", "pr"],
        "threshold": 0.91,
        "timeout_minutes": 120,
        "evaluator": evaluator,
    }
    case.update(extra)
    return case


def identity(case: dict[str, Any]) -> dict[str, Any]:
    return {
        "case_id": case["id"],
        "name": case["name"],
        "suite": "atom",
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "runner": "linux-atom-mi35x-4",
        "image": case.get("image"),
        "evaluator": case["evaluator"]["kind"],
    }


def pop_timings(result: dict[str, Any]) -> None:
    wall, server_start = result.pop("eval_wall_time_s"), result.pop("server_start_s")
    assert isinstance(wall, float) and wall > 0
    assert isinstance(server_start, float) and server_start > 0


@pytest.mark.parametrize(("score", "exit_code"), [("0.9099", 1), ("0.91", 0)])
def test_lm_eval_runs_the_explained_command_and_its_score_is_gated_on_the_threshold(
    harness: Harness, score: str, exit_code: int
) -> None:
    case = accuracy_case("lmeval", LM_EVAL)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_LMEVAL_SCORE": score}
    )

    assert run.returncode == exit_code, run.stdout + run.stderr
    entry = check_case(case, "case")
    [client] = harness.client_records()
    assert ["lm_eval", *client["argv"]] == commands.eval_argv(entry, harness.where)
    work_dir = Path(commands.eval_dir(entry, harness.where))
    assert client["cwd"] == str(work_dir)
    [results_file] = list(work_dir.rglob("results_*.json"))
    assert results_file.parent == work_dir / "deepseek-ai__DeepSeek-R1-0528"
    result = harness.result("lmeval")
    pop_timings(result)
    status = "passed" if exit_code == 0 else "failed"
    assert result == {
        **identity(case),
        "task": "gsm8k",
        "metric": "exact_match,flexible-extract",
        "score": float(score),
        "threshold": 0.91,
        "passed": exit_code == 0,
        "status": status,
        "error": None,
        "invalid_rate": None,
        "latency_s": None,
        "output_throughput": None,
    }
    verdict = "✅ passed" if exit_code == 0 else "❌ below threshold"
    assert harness.summary_file.read_text(encoding="utf-8") == (
        "### Accuracy: Name lmeval (`lmeval`)\n"
        "\n"
        "| Evaluator | Metric | Score | Threshold | Result | Invalid | Latency (s) |\n"
        "|---|---|---:|---:|---|---:|---:|\n"
        f"| lm-eval | `exact_match,flexible-extract` | {float(score):.4f} | 0.9100 | {verdict}"
        " | - | - |\n"
        "\n"
    )


@pytest.mark.parametrize(
    ("accuracy", "exit_code", "score"),
    # The tool prints `Accuracy: {acc:.3f}`: 0.9099 is reported, and gated, as 0.910.
    [("0.909", 1, 0.909), ("0.9099", 0, 0.91)],
)
def test_few_shot_gsm8k_runs_in_its_own_directory_and_its_printed_score_is_gated(
    harness: Harness, accuracy: str, exit_code: int, score: float
) -> None:
    case = accuracy_case("fewshot", FEW_SHOT, image="rocm/sgl-dev:custom")
    knob = {"SGLANG_STANDIN_GSM8K_ACCURACY": accuracy}
    run = harness.run(SCRIPT, harness.write_json("case.json", case), knob)

    assert run.returncode == exit_code, run.stdout + run.stderr
    entry = check_case(case, "case")
    [record] = harness.server_records()
    argv = commands.server_argv(entry, harness.where)
    assert [harness.where.python, "-m", "sglang.launch_server", *record["argv"]] == argv
    assert record["env"] == harness.expected_server_env({**knob, **case["env"]})
    assert "\n".join(printed_command(case["env"], argv)) in run.stdout
    assert list(harness.root.rglob("pwned")) == []
    [client] = harness.client_records()
    argv = commands.eval_argv(entry, harness.where)
    assert [harness.where.python, "-m", "sglang.test.few_shot_gsm8k", *client["argv"]] == argv
    work_dir = Path(commands.eval_dir(entry, harness.where))
    assert client["cwd"] == str(work_dir)
    assert (work_dir / "tmp_output_gsm8k.txt").is_file()
    result = harness.result("fewshot")
    pop_timings(result)
    latency, throughput = result.pop("latency_s"), result.pop("output_throughput")
    assert isinstance(latency, float) and latency >= 0
    assert isinstance(throughput, float) and throughput >= 0
    assert result == {
        **identity(case),
        "task": "gsm8k",
        "metric": "accuracy",
        "score": score,
        "threshold": 0.91,
        "passed": exit_code == 0,
        "status": "passed" if exit_code == 0 else "failed",
        "error": None,
        "invalid_rate": 0.0,
    }


@pytest.mark.parametrize("evaluator", [LM_EVAL, FEW_SHOT], ids=["lm-eval", "few-shot"])
def test_an_evaluator_crash_is_an_infrastructure_failure(
    harness: Harness, evaluator: dict[str, Any]
) -> None:
    case = accuracy_case("crash", evaluator)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_EVAL_CRASH": "1"}
    )

    assert run.returncode == 2, run.stdout + run.stderr
    result = harness.result("crash")
    assert (result["status"], result["passed"], result["score"]) == ("error", False, None)
    assert result["error"].startswith("evaluator exited with status 1:\n")
    assert "RuntimeError: standin: simulated evaluator crash" in result["error"]
    assert "| ⚠️ error |" in harness.summary_file.read_text(encoding="utf-8")


def test_a_server_that_exits_at_start_fails_the_case_with_exit_2(harness: Harness) -> None:
    case = accuracy_case("exit", LM_EVAL)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_FAIL": "exit-at-start"}
    )

    assert run.returncode == 2
    assert "standin: simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)" in run.stdout
    result = harness.result("exit")
    assert (result["status"], result["score"], result["server_start_s"]) == ("error", None, None)
    assert result["error"] == (
        "server did not become ready: server process exited with status 1 before becoming ready"
    )
    assert harness.client_records() == []


def test_sigint_during_the_evaluator_exits_130_and_leaves_no_process_behind(
    harness: Harness,
) -> None:
    case = accuracy_case("cancel", LM_EVAL)
    proc = harness.start(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_EVAL_SLEEP_S": "30"}
    )
    try:
        pids = harness.wait_for_pids(3)  # server, its scheduler, lm_eval
        assert running(pids) == pids
        proc.send_signal(signal.SIGINT)
        started = time.monotonic()
        proc.communicate(timeout=20)
        elapsed = time.monotonic() - started
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    assert (proc.returncode, elapsed < 5) == (128 + signal.SIGINT, True)
    assert running(harness.pids()) == []
    assert not (harness.results / "cancel.json").exists()


def test_a_relative_results_dir_is_resolved_against_the_launch_directory(
    harness: Harness,
) -> None:
    case = accuracy_case("relative", LM_EVAL)
    run = harness.run(SCRIPT, harness.write_json("case.json", case), {"RESULTS_DIR": "out/results"})

    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads((harness.root / "out/results/relative.json").read_text("utf-8"))
    assert (result["status"], result["score"]) == ("passed", 0.95)
    logs = harness.root / "out/results/logs"
    assert (logs / "relative.server.log").is_file()
    [client] = harness.client_records()
    work_dir = logs / "relative.lm-eval"
    assert client["argv"][client["argv"].index("--output_path") + 1] == str(work_dir)
    [results_file] = list(work_dir.rglob("results_*.json"))
    assert results_file.parent == work_dir / "deepseek-ai__DeepSeek-R1-0528"
