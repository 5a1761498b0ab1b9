"""An accuracy case: the server, the case's evaluator (`eval_commands.eval_argv`, run in a fresh
`eval_commands.eval_dir`, bounded by the case's evaluation timeout), the score gated on the
threshold (and, for a speculative-decoding case, the acceptance rate on its minimum), one
record.

The record is written on every way out: evaluated, not evaluated (status `error`, exit 2:
the machine, the server or the evaluator failed, or the server died during the
evaluation), timed out, or cancelled by SIGINT/SIGTERM."""

from __future__ import annotations

import shlex
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from generator.core import commands, eval_commands, record_rules
from generator.core.console import log
from generator.core.contract import LM_EVAL, CaseEntry
from generator.core.exits import FAILED, INFRASTRUCTURE, OK, NotReady
from generator.core.record_types import Timings
from generator.launch import preflight, record_doc, summary
from generator.launch.log_tail import echo_tail, tail
from generator.launch.process import Cancelled, Supervisor, describe_exit
from generator.launch.results import ERROR_TAIL_LINES, few_shot_metrics, lm_eval_score, utc_now
from generator.launch.server import ServerProcess
from generator.launch.sink import Sink

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.record_types import CaseMetrics, CaseRecord, CaseStatus
    from generator.launch.knobs import Knobs

EVAL_TAIL_LINES = 80
EXIT_CODES = {"passed": OK, "failed": FAILED, "error": INFRASTRUCTURE, "timeout": INFRASTRUCTURE}


@dataclass
class _Result:
    status: CaseStatus = "error"
    error: str | None = None
    score: float | None = None
    extra: dict[str, float | None] | None = None
    accept_length: float | None = None
    wall_s: float | None = None
    started_at: str | None = None
    infrastructure: str | None = None  # why the runner could not run the case


@dataclass
class _Case:
    case: CaseEntry
    knobs: Knobs
    supervisor: Supervisor
    sink: Sink
    common: record_doc.Common | None = None
    download_s: float | None = None
    server_start_s: float | None = None
    evaluator_version: str | None = None
    result: _Result = field(default_factory=_Result)
    data: CaseRecord | None = None  # the record, once made


def run_accuracy(case: CaseEntry, knobs: Knobs, supervisor: Supervisor) -> int:
    """OK when the gates pass, FAILED when one does not, INFRASTRUCTURE when there is no
    score or the record could not be written to RESULTS_DIR (core/exits.py). A bug
    records the case as an error of the launcher, then propagates."""
    state = _Case(case, knobs, supervisor, Sink(knobs, supervisor))
    try:
        return _run(state)
    except Cancelled as exc:
        data = state.data
        if data is None:
            state.result.status, state.result.error = "cancelled", f"cancelled by {exc}"
            data = _write(state)
        if not state.sink.published:
            state.sink.publish(summary.accuracy(data))
        raise
    except Exception as exc:
        if state.data is None:
            state.result.status = "error"
            state.result.error = f"the launcher failed: {type(exc).__name__}: {exc}"
            state.sink.publish(summary.accuracy(_write(state)))
        raise


def _run(state: _Case) -> int:
    case, knobs = state.case, state.knobs
    log(f"case {case['id']}: evaluator {case['evaluator']['kind']}, threshold {case['threshold']}")
    problem = state.sink.prepare()
    if problem is None:
        try:
            ready = preflight.prepare(case, knobs, state.supervisor)
        except preflight.Unready as exc:
            state.common, problem = exc.common, str(exc)
    if problem is not None:
        state.result = _Result(error=f"infrastructure: {problem}", infrastructure=problem)
        return _finish(state)
    state.common, state.download_s = ready.common, ready.download_s
    kind = case["evaluator"]["kind"]
    state.evaluator_version = ready.versions["lm_eval" if kind == LM_EVAL else "sglang"]
    server = ServerProcess(case, knobs, state.supervisor, ready.versions["sglang"])
    server.print_command()
    try:
        server.launch()
    except NotReady as exc:
        state.result = _Result(
            error=f"server did not become ready: {exc}",
            infrastructure=str(exc) if exc.infrastructure else None,
        )
        return _finish(state)
    state.server_start_s = server.start_s
    _evaluate(state, server)
    server.stop()
    return _finish(state)


def _evaluate(state: _Case, server: ServerProcess) -> None:
    case, result, where = state.case, state.result, state.knobs.where
    work_dir = Path(eval_commands.eval_dir(case, where))
    eval_log = Path(eval_commands.eval_log(case, where))
    argv = eval_commands.eval_argv(case, where)
    limit_s = case["eval_timeout_minutes"] * 60.0
    log(f"evaluator (in {work_dir}, at most {limit_s:g}s): {shlex.join(argv)}")
    result.started_at = utc_now()
    started = time.monotonic()
    try:
        shutil.rmtree(work_dir, ignore_errors=True)
        work_dir.mkdir(parents=True)
        eval_log.write_bytes(b"")
        returncode = state.supervisor.run(
            "evaluator", argv, output=eval_log, cwd=work_dir, timeout_s=limit_s
        )
    except (OSError, ValueError) as exc:
        result.error = f"cannot start the evaluator: {exc}"
        return
    result.wall_s = round(time.monotonic() - started, 3)
    echo_tail(eval_log, EVAL_TAIL_LINES)
    gone = server.exit_status()
    if gone is not None:
        reason = f"the server exited with {gone} during the evaluation"
        result.error, result.infrastructure = f"infrastructure: {reason}", reason
        return
    if returncode is None:
        result.status, result.error = "timeout", f"the evaluation ran out of its {limit_s:g}s"
        return
    log(f"evaluator exited with {describe_exit(returncode)} after {result.wall_s:.3f}s")
    if returncode != 0:
        detail = tail(eval_log, ERROR_TAIL_LINES)
        result.error = f"evaluator exited with {describe_exit(returncode)}" + (
            f":\n{detail}" if detail else ""
        )
        return
    if case["spec"] != "none":
        result.accept_length = server.accept_length()
    _score(case, Path(eval_commands.eval_dir(case, where)), where, result)


def _score(case: CaseEntry, work_dir: Path, where: commands.Where, result: _Result) -> None:
    """The score and the verdict of the gates, into `result`."""
    ev = case["evaluator"]
    if ev["kind"] == LM_EVAL:
        result.score, result.error = lm_eval_score(work_dir, ev["task"], ev["metric"])
        result.extra = {}
    else:
        metrics, result.error = few_shot_metrics(Path(eval_commands.metrics_file(case, where)))
        result.score = metrics.get("accuracy")
        result.extra = metrics
    if result.error is not None:
        return
    minimum = case["min_acceptance_rate"]
    rate = record_rules.acceptance_rate(result.accept_length, case["draft_tokens"])
    if minimum is not None and rate is None:
        result.error = "the speculative-decoding server reported no acceptance length"
        return
    below = (
        [f"score {result.score} < threshold {case['threshold']}"]
        if (result.score is not None and result.score < case["threshold"])
        else []
    )
    if minimum is not None and rate is not None and rate < minimum:
        below.append(f"acceptance rate {rate:.4f} < min_acceptance_rate {minimum}")
    result.status = "failed" if below else "passed"
    result.error = "; ".join(below) or None


def _finish(state: _Case) -> int:
    """Write the record and the summary; the exit code for the case's status
    (INFRASTRUCTURE whenever the record could not go to RESULTS_DIR)."""
    data = _write(state)
    state.sink.publish(summary.accuracy(data))
    if state.sink.problem is not None:
        return INFRASTRUCTURE
    return EXIT_CODES.get(state.result.status, INFRASTRUCTURE)


def _write(state: _Case) -> CaseRecord:
    """Make the case's record, keep it in `state.data` and write it."""
    case, result = state.case, state.result
    extra = result.extra or {}
    metrics: CaseMetrics = {
        "metric": case["evaluator"].get("metric", "accuracy"),
        "score": result.score if result.status in ("passed", "failed") else None,
        "threshold": float(case["threshold"]),
        "passed": result.status == "passed",
        "invalid_rate": extra.get("invalid"),
        "latency_s": extra.get("latency"),
        "output_throughput": extra.get("output_throughput"),
        "accept_length": result.accept_length,
        "acceptance_rate": record_rules.acceptance_rate(result.accept_length, case["draft_tokens"]),
        "min_acceptance_rate": case["min_acceptance_rate"],
    }
    if state.common is None:
        state.common = preflight.bare_common(case, state.knobs)
    data = state.data = record_doc.case_record(
        case,
        status=result.status,
        error=result.error,
        metrics=metrics,
        evaluator_argv=eval_commands.eval_argv(case, state.knobs.where),
        evaluator_version=state.evaluator_version,
        common=state.common,
        timings=Timings(
            started_at=result.started_at,
            ended_at=utc_now(),  # a case that never started: when it was given up
            wall_time_s=result.wall_s,
            server_start_s=state.server_start_s,
            download_s=state.download_s,
            estimate_minutes=None,
        ),
        infrastructure=result.infrastructure,
    )
    state.sink.write(f"{case['id']}.json", data)
    return data
