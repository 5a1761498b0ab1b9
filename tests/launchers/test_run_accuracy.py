"""scripts/run_accuracy.sh end to end against the stand-in sglang and lm_eval packages."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from generator.core import commands, eval_commands
from generator.core.entry_checks import check_case
from tests.launchers.support import (
    Harness,
    assert_valid_record,
    fixture_case,
    not_ready,
    printed_command,
)

SCRIPT = "run_accuracy.sh"
LM_EVAL_CASE = "deepseek-r1-fp8-tp4"
FEW_SHOT_CASE = "deepseek-r1-mxfp4-tp4-mtp-rocm720"


@pytest.mark.parametrize(("score", "exit_code"), [("0.9099", 1), ("0.91", 0)])
def test_lm_eval_gets_the_catalog_model_args_and_its_score_is_gated_on_the_threshold(
    harness: Harness, score: str, exit_code: int
) -> None:
    case = fixture_case(LM_EVAL_CASE)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_LMEVAL_SCORE": score}
    )

    assert run.returncode == exit_code, run.stdout + run.stderr
    entry = check_case(case, "case")
    [client] = harness.client_records()
    argv = ["lm_eval", *client["argv"]]
    assert argv == eval_commands.eval_argv(entry, harness.where)
    assert argv[argv.index("--model_args") + 1] == (
        f"base_url=http://127.0.0.1:{harness.port}/v1/completions,"
        "model=deepseek-ai/DeepSeek-R1-0528,"
        "num_concurrent=65,max_retries=1,tokenized_requests=False,trust_remote_code=True"
    )
    work_dir = Path(eval_commands.eval_dir(entry, harness.where))
    assert client["cwd"] == str(work_dir)
    [results_file] = list(work_dir.rglob("results_*.json"))
    assert results_file.parent == work_dir / "deepseek-ai__DeepSeek-R1-0528"
    record = harness.result(case["id"])
    assert_valid_record(record)
    status = "passed" if exit_code == 0 else "failed"
    assert (record["status"], record["error"], record["evaluator"]["argv"]) == (
        status,
        None if exit_code == 0 else f"score {float(score)} < threshold 0.91",
        argv,
    )
    assert record["metrics"] == {
        "metric": "exact_match,flexible-extract",
        "score": float(score),
        "threshold": 0.91,
        "passed": exit_code == 0,
        "invalid_rate": None,
        "latency_s": None,
        "output_throughput": None,
        "accept_length": None,
        "acceptance_rate": None,
        "min_acceptance_rate": None,
    }
    verdict = "✅ passed" if exit_code == 0 else "❌ failed"
    summary = harness.summary_file.read_text(encoding="utf-8")
    assert summary.startswith(f"### Accuracy: DeepSeek-R1-FP8 TP4 (`{case['id']}`)\n\n- **Image** ")
    assert (
        f"| lm-eval | `exact_match,flexible-extract` | {float(score):.4f} | 0.9100 | - | - "
        f"| {verdict} |"
    ) in summary
    assert summary == (harness.results / "summary.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("version", "host"), [("0.5.8", "http://127.0.0.1"), ("0.5.23", "127.0.0.1")]
)
def test_the_few_shot_evaluation_passes_the_host_form_of_the_image_sglang(
    harness: Harness, version: str, host: str
) -> None:
    case = fixture_case(FEW_SHOT_CASE)
    knob = {"SGLANG_STANDIN_VERSION": version}
    run = harness.run(SCRIPT, harness.write_json("case.json", case), knob)

    assert run.returncode == 0, run.stdout + run.stderr
    entry = check_case(case, "case")
    [server] = harness.server_records()
    argv = commands.server_argv(entry, harness.where)
    assert [harness.where.python, "-m", "sglang.launch_server", *server["argv"]] == argv
    assert server["env"] == harness.expected_server_env({**knob, **case["env"]})
    assert "\n".join(printed_command(case["env"], argv)) in run.stdout
    [client] = harness.client_records()
    assert [harness.where.python, *client["argv"]] == eval_commands.eval_argv(entry, harness.where)
    assert (client["host"], client["url"]) == (host, f"http://127.0.0.1:{harness.port}")
    work_dir = Path(eval_commands.eval_dir(entry, harness.where))
    assert client["cwd"] == str(work_dir)
    assert (work_dir / "tmp_output_gsm8k.txt").is_file()
    record = harness.result(case["id"])
    assert_valid_record(record)
    metrics = record["metrics"]
    assert (record["status"], metrics["score"], metrics["invalid_rate"]) == ("passed", 0.95, 0.0)
    assert (record["evaluator"]["name"], record["evaluator"]["version"]) == (
        "sglang-few-shot-gsm8k",
        version,
    )
    assert (metrics["accept_length"], metrics["acceptance_rate"]) == (2.5, 0.5)


def test_the_few_shot_gate_uses_the_unrounded_accuracy_run_eval_returns(harness: Harness) -> None:
    case = fixture_case(FEW_SHOT_CASE)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_GSM8K_ACCURACY": "0.9439"}
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert "Accuracy: 0.944\n" in run.stdout  # what the tool prints, and what is not gated
    record = harness.result(case["id"])
    assert (record["status"], record["metrics"]["score"], record["error"]) == (
        "failed",
        0.9439,
        "score 0.9439 < threshold 0.944",
    )


@pytest.mark.fault
@pytest.mark.parametrize("case_id", [LM_EVAL_CASE, FEW_SHOT_CASE], ids=["lm-eval", "few-shot"])
def test_an_evaluator_crash_is_an_infrastructure_failure(harness: Harness, case_id: str) -> None:
    case = fixture_case(case_id)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_EVAL_CRASH": "1"}
    )

    assert run.returncode == 2, run.stdout + run.stderr
    record = harness.result(case["id"])
    assert_valid_record(record)
    assert (record["status"], record["metrics"]["passed"], record["metrics"]["score"]) == (
        "error",
        False,
        None,
    )
    assert record["error"].startswith("evaluator exited with status 1:\n")
    assert "RuntimeError: standin: simulated evaluator crash" in record["error"]
    assert "| ⚠️ error |" in harness.summary_file.read_text(encoding="utf-8")


@pytest.mark.fault
def test_an_evaluation_that_outruns_its_timeout_is_stopped_with_exit_2(harness: Harness) -> None:
    case = fixture_case(FEW_SHOT_CASE)
    case["eval_timeout_minutes"] = 0.01
    started = time.monotonic()
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_EVAL_SLEEP_S": "30"}
    )
    elapsed = time.monotonic() - started

    assert run.returncode == 2, run.stdout + run.stderr
    assert elapsed < 30  # a bound: the evaluator would sleep 30 s
    record = harness.result(case["id"])
    assert_valid_record(record)
    assert (record["status"], record["error"], record["validity"]) == (
        "timeout",
        "the evaluation ran out of its 0.6s",
        {"valid": False, "reason": "status timeout"},
    )
    assert "| ⏱️ timeout |" in harness.summary_file.read_text(encoding="utf-8")


@pytest.mark.fault
def test_a_server_that_exits_at_start_fails_the_case_with_exit_2(harness: Harness) -> None:
    case = fixture_case(LM_EVAL_CASE)
    run = harness.run(
        SCRIPT, harness.write_json("case.json", case), {"SGLANG_STANDIN_FAIL": "exit-at-start"}
    )

    assert run.returncode == 2
    assert "standin: simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)" in run.stdout
    record = harness.result(case["id"])
    assert (record["status"], record["metrics"]["score"], record["timings"]["server_start_s"]) == (
        "error",
        None,
        None,
    )
    assert record["error"] == not_ready(
        "server process exited with status 1 before becoming ready",
        harness.logs / f"{case['id']}.server.log",
    )
    assert harness.client_records() == []
