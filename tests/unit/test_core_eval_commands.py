"""generator.core.eval_commands: an accuracy case's evaluator command (lm-eval or the
few-shot GSM8K script), its working directory, log and metrics file."""

from __future__ import annotations

from typing import cast

from generator.core.commands import Where
from generator.core.eval_commands import eval_argv, eval_dir, eval_log, metrics_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import CaseEntry

WHERE = Where(python="py3", port="30000", logs="/r/logs", root="/code")


def case(evaluator: dict[str, object]) -> CaseEntry:
    data = {
        "id": "ds-tp8",
        "model_path": "deepseek-ai/R1",
        "server_args": [],
        "evaluator": evaluator,
    }
    return cast("CaseEntry", data)


LM_EVAL = {
    "kind": "lm-eval",
    "task": "gsm8k",
    "model": "local-completions",
    "num_fewshot": 5,
    "metric": "exact_match",
    "model_args": {"num_concurrent": 32, "tokenized_requests": False, "timeout": 1.5},
}
FEW_SHOT = {
    "kind": "sglang-few-shot-gsm8k",
    "num_shots": 8,
    "num_questions": 1319,
    "parallel": 64,
    "max_new_tokens": 512,
}


def test_each_case_s_files_are_named_for_it_and_its_evaluator() -> None:
    assert eval_dir(case(LM_EVAL), WHERE) == "/r/logs/ds-tp8.lm-eval"
    assert eval_log(case(LM_EVAL), WHERE) == "/r/logs/ds-tp8.eval.log"
    assert metrics_file(case(FEW_SHOT), WHERE) == (
        "/r/logs/ds-tp8.sglang-few-shot-gsm8k/metrics.json"
    )


def test_lm_eval_gets_the_server_s_completions_url_the_model_and_the_catalog_s_args() -> None:
    assert eval_argv(case(LM_EVAL), WHERE) == [
        "lm_eval",
        "--model",
        "local-completions",
        "--model_args",
        (
            "base_url=http://127.0.0.1:30000/v1/completions,model=deepseek-ai/R1,"
            "num_concurrent=32,tokenized_requests=False,timeout=1.5"
        ),
        "--tasks",
        "gsm8k",
        "--num_fewshot",
        "5",
        "--output_path",
        "/r/logs/ds-tp8.lm-eval",
    ]


def test_lm_eval_gets_the_model_cache_s_copy_of_the_model() -> None:
    cached = Where(python="py3", port="1", logs="/l", model_cache="/models")
    model_args = eval_argv(case(LM_EVAL), cached)[4]
    assert model_args.split(",")[1] == "model=/models/deepseek-ai/R1"


def test_the_few_shot_script_of_the_checkout_runs_against_the_port() -> None:
    assert eval_argv(case(FEW_SHOT), WHERE) == [
        "py3",
        "/code/scripts/few_shot_gsm8k.py",
        "--num-shots",
        "8",
        "--num-questions",
        "1319",
        "--parallel",
        "64",
        "--max-new-tokens",
        "512",
        "--port",
        "30000",
        "--metrics-file",
        "/r/logs/ds-tp8.sglang-few-shot-gsm8k/metrics.json",
    ]
