"""A benchmark job: one server for the whole job, its points swept in order with
`commands.bench_argv`, one result file per point."""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from pathlib import Path

from generator.launch import commands, summary
from generator.launch.console import echo_tail, log, tail
from generator.launch.contract import JobEntry, PointEntry
from generator.launch.knobs import Knobs
from generator.launch.process import Supervisor, describe_exit
from generator.launch.results import (
    ERROR_TAIL_LINES,
    BenchMetrics,
    PointResult,
    PointStatus,
    bench_metrics,
    last_json_line,
    no_metrics,
    point_identity,
    write_json,
)
from generator.launch.server import NotReady, Server

BENCH_TAIL_LINES = 60


@dataclass(frozen=True)
class _Outcome:
    status: PointStatus
    error: str | None
    completed: int | None = None
    metrics: BenchMetrics | None = None


def run_benchmark(job: JobEntry, knobs: Knobs, supervisor: Supervisor) -> int:
    """0 when every point is ok, 1 when one is not, 2 when the server never got ready."""
    points = job["points"]
    where = f"results in {knobs.results_dir}, logs in {knobs.log_dir}"
    log(f"job {job['id']}: {len(points)} point(s); {where}")
    server = Server(job, knobs, supervisor)
    server.print_command()
    try:
        server.launch()
    except NotReady as exc:
        error = f"server did not become ready: {exc}"
        results = [_record(job, point, knobs, _Outcome("failed", error)) for point in points]
        summary.publish(summary.benchmark(job, results, server.starts), knobs.step_summary)
        return 2
    results = _sweep(job, knobs, supervisor, server)
    summary.publish(summary.benchmark(job, results, server.starts), knobs.step_summary)
    failures = sum(result["status"] != "ok" for result in results)
    log(f"{len(results) - failures} of {len(results)} point(s) ok; server starts: {server.starts}")
    return 1 if failures else 0


def _sweep(
    job: JobEntry, knobs: Knobs, supervisor: Supervisor, server: Server
) -> list[PointResult]:
    """Every point in order; a dead server is restarted up to MAX_SERVER_RESTARTS times."""
    results: list[PointResult] = []
    restarts = served = 0
    for index, point in enumerate(job["points"]):
        if not server.alive():
            server.reap()
            if restarts >= knobs.max_restarts:
                spent = f"restart budget exhausted (MAX_SERVER_RESTARTS={knobs.max_restarts})"
                outcome = _Outcome("server-died", f"server not running; {spent}")
                results.append(_record(job, point, knobs, outcome))
                continue
            restarts += 1
            log(f"server is gone: restart {restarts} of {knobs.max_restarts}")
            try:
                server.launch()
            except NotReady as exc:
                outcome = _Outcome("server-died", f"server restart failed: {exc}")
                results.append(_record(job, point, knobs, outcome))
                continue
            served = 0
        if served:
            server.flush()
        results.append(_run_point(job, index, knobs, supervisor, server))
        served += 1
    return results


def _run_point(
    job: JobEntry, index: int, knobs: Knobs, supervisor: Supervisor, server: Server
) -> PointResult:
    point = job["points"][index]
    where = knobs.where
    output = Path(commands.bench_output(point, where))
    client_log = Path(commands.bench_log(point, where))
    output.unlink(missing_ok=True)
    client_log.write_bytes(b"")
    argv = commands.bench_argv(job, point, where)
    log(f"point {index + 1}/{len(job['points'])} {point['id']}: {shlex.join(argv)}")
    started = time.monotonic()
    try:
        returncode = supervisor.run("sglang.bench_serving", argv, output=client_log)
    except (OSError, ValueError) as exc:
        outcome = _Outcome("failed", f"cannot start sglang.bench_serving: {exc}")
        ran = "could not start"
    else:
        echo_tail(client_log, BENCH_TAIL_LINES)
        outcome = _judge(point, returncode, output, client_log)
        ran = f"sglang.bench_serving exited with {describe_exit(returncode)}"
    wall_s = round(time.monotonic() - started, 3)
    if outcome.status == "failed" and not server.alive():
        error = f"server process exited during the point; {outcome.error}"
        outcome = _Outcome("server-died", error, outcome.completed, outcome.metrics)
    result = _record(job, point, knobs, outcome, wall_s=wall_s, server_start_s=server.start_s)
    log(f"point {point['id']}: {outcome.status} ({ran}, {wall_s:.3f}s)")
    return result


def _judge(point: PointEntry, returncode: int, output: Path, client_log: Path) -> _Outcome:
    """ok when bench_serving exited 0 and its result line reports every prompt completed."""
    if returncode != 0:
        detail = tail(client_log, ERROR_TAIL_LINES)
        error = f"sglang.bench_serving exited with {describe_exit(returncode)}"
        return _Outcome("failed", error + (f":\n{detail}" if detail else ""))
    line = last_json_line(output)
    if line is None:
        return _Outcome("failed", "sglang.bench_serving wrote no result line to its --output-file")
    done = line.get("completed")
    completed = done if isinstance(done, int) and not isinstance(done, bool) else None
    metrics = bench_metrics(line)
    if completed != point["num_prompts"]:
        error = f"{completed} of {point['num_prompts']} requests completed"
        return _Outcome("failed", error, completed, metrics)
    return _Outcome("ok", None, completed, metrics)


def _record(
    job: JobEntry,
    point: PointEntry,
    knobs: Knobs,
    outcome: _Outcome,
    *,
    wall_s: float | None = None,
    server_start_s: float | None = None,
) -> PointResult:
    """Write `$RESULTS_DIR/<point id>.json`; a point that did not run is logged here."""
    result: PointResult = {
        **point_identity(job, point),
        "status": outcome.status,
        "error": outcome.error,
        "completed": outcome.completed,
        **(outcome.metrics or no_metrics()),
        "wall_time_s": wall_s,
        "server_start_s": server_start_s,
    }
    write_json(knobs.results_dir / f"{point['id']}.json", result)
    if wall_s is None:
        log(f"point {point['id']}: {outcome.status} ({outcome.error})")
    return result
