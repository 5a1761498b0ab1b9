"""An accuracy case's evaluator command, its working directory, log and metrics file."""

from __future__ import annotations

from generator.core.commands import Where, base_url, models
from generator.core.contract import LM_EVAL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import CaseEntry

# Used by lm-eval's `local-completions` model; the SGLang server's OpenAI endpoint.
COMPLETIONS_PATH = "/v1/completions"
FEW_SHOT_SCRIPT = "scripts/few_shot_gsm8k.py"


def eval_dir(case: CaseEntry, where: Where) -> str:
    """The evaluator's working directory (created empty); lm-eval writes its results
    under it, few_shot_gsm8k its answers and the metrics file."""
    return f"{where.logs}/{case['id']}.{case['evaluator']['kind']}"


def eval_log(case: CaseEntry, where: Where) -> str:
    return f"{where.logs}/{case['id']}.eval.log"


def metrics_file(case: CaseEntry, where: Where) -> str:
    """Where the few-shot GSM8K evaluation writes the metrics `run_eval` returned."""
    return f"{eval_dir(case, where)}/metrics.json"


def eval_argv(case: CaseEntry, where: Where) -> list[str]:
    """The case's evaluator, run in `eval_dir`, against the case's server."""
    ev = case["evaluator"]
    if ev["kind"] == LM_EVAL:
        model_args = ",".join(
            (
                f"base_url={base_url(where)}{COMPLETIONS_PATH}",
                f"model={models(case, where)[case['model_path']]}",
                # As lm-eval's parser reads them (booleans as True/False).
                *(f"{k}={v}" for k, v in ev["model_args"].items()),
            )
        )
        return [
            "lm_eval",
            "--model",
            ev["model"],
            "--model_args",
            model_args,
            "--tasks",
            ev["task"],
            "--num_fewshot",
            str(ev["num_fewshot"]),
            "--output_path",
            eval_dir(case, where),
        ]
    return [
        where.python,
        f"{where.root}/{FEW_SHOT_SCRIPT}",
        "--num-shots",
        str(ev["num_shots"]),
        "--num-questions",
        str(ev["num_questions"]),
        "--parallel",
        str(ev["parallel"]),
        "--max-new-tokens",
        str(ev["max_new_tokens"]),
        "--port",
        where.port,
        "--metrics-file",
        metrics_file(case, where),
    ]
