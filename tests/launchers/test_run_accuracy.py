"""scripts/run_accuracy.sh end to end against the stand-in sglang and lm_eval packages."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .support import Harness, printed_command

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


def timings(result: dict[str, Any]) -> tuple[Any, Any]:
    return result.pop("eval_wall_time_s"), result.pop("server_start_s")


@pytest.mark.parametrize(
    ("score", "exit_code", "status"),
    [("0.9099", 1, "failed"), ("0.91", 0, "passed"), ("0.95", 0, "passed")],
)
def test_lm_eval_score_is_gated_on_the_threshold(
    harness: Harness, score: str, exit_code: int, status: str
) -> None:
    case = accuracy_case("lmeval-gate", LM_EVAL)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_LMEVAL_SCORE": score}
    )

    assert run.returncode == exit_code, run.stdout + run.stderr
    result = harness.result("lmeval-gate")
    wall, server_start = timings(result)
    assert isinstance(wall, float) and wall > 0
    assert isinstance(server_start, float) and server_start > 0
    assert result == {
        "case_id": "lmeval-gate",
        "name": "Name lmeval-gate",
        "suite": "atom",
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "runner": "linux-atom-mi35x-4",
        "image": None,
        "evaluator": "lm-eval",
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


@pytest.mark.parametrize(
    ("accuracy", "exit_code", "status"),
    [("0.909", 1, "failed"), ("0.91", 0, "passed"), ("0.95", 0, "passed")],
)
def test_few_shot_gsm8k_accuracy_is_gated_on_the_threshold(
    harness: Harness, accuracy: str, exit_code: int, status: str
) -> None:
    case = accuracy_case("fewshot-gate", FEW_SHOT, image="rocm/sgl-dev:custom")
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_GSM8K_ACCURACY": accuracy}
    )

    assert run.returncode == exit_code, run.stdout + run.stderr
    result = harness.result("fewshot-gate")
    wall, server_start = timings(result)
    assert isinstance(wall, float) and wall > 0
    assert isinstance(server_start, float) and server_start > 0
    latency, throughput = result.pop("latency_s"), result.pop("output_throughput")
    assert isinstance(latency, float) and latency >= 0
    assert isinstance(throughput, float) and throughput >= 0
    assert result == {
        "case_id": "fewshot-gate",
        "name": "Name fewshot-gate",
        "suite": "atom",
        "model_path": "deepseek-ai/DeepSeek-R1-0528",
        "runner": "linux-atom-mi35x-4",
        "image": "rocm/sgl-dev:custom",
        "evaluator": "sglang-few-shot-gsm8k",
        "task": "gsm8k",
        "metric": "accuracy",
        "score": float(accuracy),
        "threshold": 0.91,
        "passed": exit_code == 0,
        "status": status,
        "error": None,
        "invalid_rate": 0.0,
    }


def test_few_shot_score_is_the_three_decimal_value_the_tool_prints(harness: Harness) -> None:
    # sglang.test.few_shot_gsm8k prints `Accuracy: {acc:.3f}`; 0.9099 is reported as 0.910.
    case = accuracy_case("fewshot-rounding", FEW_SHOT)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_GSM8K_ACCURACY": "0.9099"}
    )

    assert run.returncode == 0, run.stdout + run.stderr
    assert harness.result("fewshot-rounding")["score"] == 0.91


def test_lm_eval_is_called_with_the_real_cli_and_the_server_completions_url(
    harness: Harness,
) -> None:
    case = accuracy_case("lmeval-cli", LM_EVAL)
    run = harness.run(SCRIPT, harness.write_json("case.json", case))

    assert run.returncode == 0, run.stdout + run.stderr
    [client] = harness.client_records()
    [output_dir] = sorted(harness.logs.glob("lmeval-cli.lm_eval.*"))
    assert client["tool"] == "lm_eval"
    assert client["argv"] == [
        "--model",
        "local-completions",
        "--model_args",
        f"base_url=http://127.0.0.1:{harness.port}/v1/completions,"
        "model=deepseek-ai/DeepSeek-R1-0528,num_concurrent=64,max_retries=3,"
        "tokenized_requests=False",
        "--tasks",
        "gsm8k",
        "--num_fewshot",
        "3",
        "--output_path",
        str(output_dir),
    ]
    [results_file] = list(output_dir.rglob("results_*.json"))
    assert results_file.parent == output_dir / "deepseek-ai__DeepSeek-R1-0528"


def test_few_shot_gsm8k_runs_in_its_own_directory_with_the_real_flags(harness: Harness) -> None:
    case = accuracy_case("fewshot-cli", FEW_SHOT)
    run = harness.run(SCRIPT, harness.write_json("case.json", case))

    assert run.returncode == 0, run.stdout + run.stderr
    [client] = harness.client_records()
    [work_dir] = sorted(harness.logs.glob("fewshot-cli.few_shot.*"))
    assert isinstance(client.pop("pid"), int)
    assert client == {
        "tool": "sglang.test.few_shot_gsm8k",
        "argv": [
            "--num-shots",
            "5",
            "--num-questions",
            "1319",
            "--parallel",
            "1319",
            "--host",
            "http://127.0.0.1",
            "--port",
            str(harness.port),
        ],
        "cwd": str(work_dir),
    }
    assert (work_dir / "tmp_output_gsm8k.txt").is_file()
    assert not (harness.root / "tmp_output_gsm8k.txt").exists()


def test_the_accuracy_server_receives_exactly_the_case_server_args_and_env(
    harness: Harness,
) -> None:
    case = accuracy_case("fidelity", FEW_SHOT)
    run = harness.run(SCRIPT, harness.write_json("case.json", case))

    assert run.returncode == 0, run.stdout + run.stderr
    [record] = harness.server_records()
    argv = harness.server_prefix(case["model_path"]) + case["server_args"]
    assert record["argv"] == argv
    assert record["env"] == harness.expected_server_env(case["env"])
    python = harness.base_env()["PYTHON"]
    expected = printed_command(case["env"], [python, "-m", "sglang.launch_server", *argv])
    lines = run.stdout.splitlines()
    start = lines.index(expected[0])
    assert lines[start : start + len(expected)] == expected
    assert list(harness.root.rglob("pwned")) == []


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


@pytest.mark.parametrize("evaluator", [LM_EVAL, FEW_SHOT], ids=["lm-eval", "few-shot"])
def test_a_server_that_never_becomes_ready_fails_the_case_with_exit_2(
    harness: Harness, evaluator: dict[str, Any]
) -> None:
    case = accuracy_case("stuck", evaluator)
    run = harness.run(
        SCRIPT,
        harness.write_json("case.json", case),
        {"SGLANG_STANDIN_FAIL": "never-ready", "READY_TIMEOUT_S": "2"},
    )

    assert run.returncode == 2
    result = harness.result("stuck")
    assert (result["status"], result["score"], result["server_start_s"]) == ("error", None, None)
    assert result["error"] == (
        "server did not become ready: server not ready after READY_TIMEOUT_S=2s "
        "(last stage: /health)"
    )
    assert harness.client_records() == []


def test_a_server_that_exits_at_start_fails_the_case_with_exit_2(harness: Harness) -> None:
    case = accuracy_case("exit", LM_EVAL)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_FAIL": "exit-at-start"}
    )

    assert run.returncode == 2
    assert "standin: simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)" in run.stdout
    assert harness.result("exit")["error"] == (
        "server did not become ready: server process exited with status 1 before becoming ready"
    )


def test_the_step_summary_gets_the_score_threshold_and_verdict(harness: Harness) -> None:
    case = accuracy_case("summary", LM_EVAL)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_LMEVAL_SCORE": "0.9099"}
    )

    assert run.returncode == 1
    assert harness.summary_file.read_text(encoding="utf-8") == (
        "### Accuracy: Name summary (`summary`)\n"
        "\n"
        "| Evaluator | Metric | Score | Threshold | Result | Invalid | Latency (s) |\n"
        "|---|---|---:|---:|---|---:|---:|\n"
        "| lm-eval | `exact_match,flexible-extract` | 0.9099 | 0.9100 | ❌ below threshold"
        " | - | - |\n"
        "\n"
    )


def test_a_relative_results_dir_is_resolved_against_the_launch_directory(
    harness: Harness,
) -> None:
    case = accuracy_case("relative", LM_EVAL)
    run = harness.run(SCRIPT, harness.write_json("case.json", case), {"RESULTS_DIR": "out/results"})

    assert run.returncode == 0, run.stdout + run.stderr
    result = json.loads((harness.root / "out/results/relative.json").read_text("utf-8"))
    assert (result["status"], result["score"]) == ("passed", 0.95)
    assert (harness.root / "out/results/logs/relative.server.log").is_file()
    [output_dir] = sorted((harness.root / "out/results/logs").glob("relative.lm_eval.*"))
    [client] = harness.client_records()
    assert client["argv"][client["argv"].index("--output_path") + 1] == str(output_dir)
    [results_file] = list(output_dir.rglob("results_*.json"))
    assert results_file.parent == output_dir / "deepseek-ai__DeepSeek-R1-0528"
