"""An accuracy case: the server, the case's evaluator (`commands.eval_argv`, run in a fresh
`commands.eval_dir`), the score gated on the threshold, `$RESULTS_DIR/<case id>.json`."""

from __future__ import annotations

import shlex
import shutil
import time
from pathlib import Path

from generator.launch import commands, summary
from generator.launch.console import echo_tail, log, tail
from generator.launch.contract import CaseEntry
from generator.launch.knobs import Knobs
from generator.launch.process import Supervisor, describe_exit
from generator.launch.results import (
    ERROR_TAIL_LINES,
    CaseResult,
    CaseStatus,
    lm_eval_score,
    parse_few_shot,
    write_json,
)
from generator.launch.server import NotReady, Server

EVAL_TAIL_LINES = 80
EXIT_CODES: dict[CaseStatus, int] = {"passed": 0, "failed": 1, "error": 2}


def run_accuracy(case: CaseEntry, knobs: Knobs, supervisor: Supervisor) -> int:
    """0 when the score reaches the threshold, 1 below it, 2 when there is no score."""
    log(f"case {case['id']}: evaluator {case['evaluator']['kind']}, threshold {case['threshold']}")
    server = Server(case, knobs, supervisor)
    server.print_command()
    try:
        server.launch()
    except NotReady as exc:
        return _finish(case, knobs, error=f"server did not become ready: {exc}")
    where = knobs.where
    work_dir = Path(commands.eval_dir(case, where))
    eval_log = Path(commands.eval_log(case, where))
    shutil.rmtree(work_dir, ignore_errors=True)
    work_dir.mkdir(parents=True)
    eval_log.write_bytes(b"")
    argv = commands.eval_argv(case, where)
    log(f"evaluator (in {work_dir}): {shlex.join(argv)}")
    started = time.monotonic()
    try:
        returncode = supervisor.run("evaluator", argv, output=eval_log, cwd=work_dir)
    except (OSError, ValueError) as exc:
        server.stop()
        reason = f"cannot start the evaluator: {exc}"
        return _finish(case, knobs, error=reason, server_start_s=server.start_s)
    wall_s = round(time.monotonic() - started, 3)
    echo_tail(eval_log, EVAL_TAIL_LINES)
    log(f"evaluator exited with {describe_exit(returncode)} after {wall_s:.3f}s")
    server.stop()
    score, error, printed = _score(case, returncode, work_dir, eval_log)
    return _finish(
        case,
        knobs,
        score=score,
        error=error,
        printed=printed,
        eval_wall_time_s=wall_s,
        server_start_s=server.start_s,
    )


def _score(
    case: CaseEntry, returncode: int, work_dir: Path, eval_log: Path
) -> tuple[float | None, str | None, dict[str, float | None]]:
    """The score, or why there is none; and what few_shot_gsm8k printed besides."""
    if returncode != 0:
        detail = tail(eval_log, ERROR_TAIL_LINES)
        error = f"evaluator exited with {describe_exit(returncode)}"
        return None, error + (f":\n{detail}" if detail else ""), {}
    evaluator = case["evaluator"]
    if evaluator["kind"] == "lm-eval":
        score, error_or_none = lm_eval_score(work_dir, evaluator["task"], evaluator["metric"])
        return score, error_or_none, {}
    try:
        printed = parse_few_shot(eval_log.read_text(encoding="utf-8", errors="replace"))
    except OSError as exc:
        return None, f"cannot read {eval_log}: {exc}", {}
    score = printed.pop("accuracy")
    if score is None:
        return None, "sglang.test.few_shot_gsm8k printed no 'Accuracy:' line", printed
    return score, None, printed


def _finish(
    case: CaseEntry,
    knobs: Knobs,
    *,
    score: float | None = None,
    error: str | None = None,
    printed: dict[str, float | None] | None = None,
    eval_wall_time_s: float | None = None,
    server_start_s: float | None = None,
) -> int:
    """Write the result and the summary; the exit code for the case's status."""
    evaluator = case["evaluator"]
    threshold = float(case["threshold"])
    status: CaseStatus
    if error is not None or score is None:
        status, score = "error", None
    else:
        status = "passed" if score >= threshold else "failed"
    extra = printed or {}
    result: CaseResult = {
        "case_id": case["id"],
        "name": case.get("name"),
        "suite": case.get("suite"),
        "model_path": case["model_path"],
        "runner": case.get("runner"),
        "image": case.get("image"),
        "evaluator": evaluator["kind"],
        "task": evaluator.get("task", "gsm8k"),
        "metric": evaluator.get("metric", "accuracy"),
        "score": score,
        "threshold": threshold,
        "passed": status == "passed",
        "status": status,
        "error": error,
        "invalid_rate": extra.get("invalid_rate"),
        "latency_s": extra.get("latency_s"),
        "output_throughput": extra.get("output_throughput"),
        "eval_wall_time_s": eval_wall_time_s,
        "server_start_s": server_start_s,
    }
    write_json(knobs.results_dir / f"{case['id']}.json", result)
    summary.publish(summary.accuracy(result), knobs.step_summary)
    return EXIT_CODES[status]
