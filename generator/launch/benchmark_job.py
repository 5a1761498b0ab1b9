"""A benchmark job: one server for the whole job, its points swept in order with the job's
declared client (`commands.bench_argv`), each within its timeout, one record per point.

Every point gets a record on every way out: run, not run (the job could not start, the
server is gone), timed out, or cancelled by SIGINT/SIGTERM, after which the summary is
written and the signal goes on to stop every process.
"""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

from generator.core import commands, record_rules
from generator.core.console import log
from generator.core.exits import FAILED, INFRASTRUCTURE, OK, NotReady
from generator.core.record_types import Timings
from generator.launch import preflight, record_doc, summary
from generator.launch.log_tail import echo_tail, tail
from generator.launch.process import Cancelled, Supervisor, describe_exit
from generator.launch.results import ERROR_TAIL_LINES, result_line, utc_now
from generator.launch.server import ServerProcess
from generator.launch.sink import Sink
from generator.launch.turns import TurnGate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import JobEntry, PointEntry
    from generator.core.record_types import PointRecord, PointStatus
    from generator.launch.knobs import Knobs

BENCH_TAIL_LINES = 60


@dataclass(frozen=True)
class _Outcome:
    status: PointStatus
    error: str | None
    line: dict[str, object] | None = None


@dataclass
class _Job:
    """What the points of one job share, and the records so far."""

    job: JobEntry
    knobs: Knobs
    supervisor: Supervisor
    sink: Sink
    common: record_doc.Common | None = None
    download_s: float | None = None
    client_version: str | None = None
    server: ServerProcess | None = None
    records: dict[str, PointRecord] = field(default_factory=dict)
    gate: TurnGate = field(default_factory=lambda: TurnGate(None, 1.0))

    def shared(self) -> record_doc.Common:
        if self.common is None:
            self.common = preflight.bare_common(self.job, self.knobs)
        return self.common


def point_timeout(job: JobEntry, point: PointEntry, knobs: Knobs) -> tuple[float, str]:
    """A point's timeout in seconds, and where it comes from."""
    if knobs.point_timeout_s is not None:
        return knobs.point_timeout_s, "POINT_TIMEOUT_S"
    factor = job["point_timeout_factor"]
    minutes = point["estimate_minutes"]
    return minutes * 60.0 * factor, f"estimate {minutes} min x point_timeout_factor {factor:g}"


def run_benchmark(job: JobEntry, knobs: Knobs, supervisor: Supervisor) -> int:
    """OK when every point is ok, FAILED when one is not, INFRASTRUCTURE when the job could
    not run or its results could not be written to RESULTS_DIR (core/exits.py). A bug
    records the points not done yet as failed by the launcher, then propagates."""
    ctx = _Job(job, knobs, supervisor, Sink(knobs, supervisor))
    ctx.gate = TurnGate(job.get("turns"), knobs.ready_poll_s)
    try:
        return _run(ctx)
    except Cancelled as exc:
        for point in job["points"]:
            if point["id"] not in ctx.records:
                _missed(ctx, point, "cancelled", f"cancelled by {exc}")
        if not ctx.sink.published:
            _publish(ctx)
        raise
    except Exception as exc:
        for point in job["points"]:
            if point["id"] not in ctx.records:
                _missed(ctx, point, "failed", f"the launcher failed: {type(exc).__name__}: {exc}")
        _publish(ctx)
        raise


def _run(ctx: _Job) -> int:
    job, knobs = ctx.job, ctx.knobs
    points = job["points"]
    log(f"job {job['id']}: {len(points)} point(s); results in {knobs.results_dir}")
    problem = ctx.sink.prepare()
    if problem is None:
        try:
            ready = preflight.prepare(job, knobs, ctx.supervisor)
        except preflight.Unready as exc:
            ctx.common, problem = exc.common, str(exc)
    if problem is not None:
        for point in points:
            _missed(ctx, point, "failed", f"infrastructure: {problem}", infra=problem)
        _publish(ctx)
        return INFRASTRUCTURE
    module = job["client"]["module"]
    ctx.common, ctx.download_s = ready.common, ready.download_s
    ctx.client_version = ready.versions["sglang"] if module.startswith("sglang.") else None
    server = ctx.server = ServerProcess(job, knobs, ctx.supervisor, ready.versions["sglang"])
    server.print_command()
    try:
        server.launch()
    except NotReady as exc:
        infra = str(exc) if exc.infrastructure else None
        for point in points:
            _missed(ctx, point, "failed", f"server did not become ready: {exc}", infra=infra)
        _publish(ctx)
        return exc.return_code
    ctx.gate.ready()
    _sweep(ctx, server)
    _publish(ctx)
    server.stop()
    records = list(ctx.records.values())
    failures = sum(not r["validity"]["valid"] for r in records)
    log(
        f"{len(records) - failures} of {len(records)} point(s) valid; "
        f"server starts: {server.starts}"
    )
    if ctx.sink.problem is not None:
        return INFRASTRUCTURE
    return FAILED if failures else OK


def _publish(ctx: _Job) -> None:
    records = [ctx.records[p["id"]] for p in ctx.job["points"] if p["id"] in ctx.records]
    starts = ctx.server.starts if ctx.server is not None else 0
    text = summary.benchmark(ctx.job, records, starts, ctx.shared().provenance)
    ctx.sink.publish(text)


def _sweep(ctx: _Job, server: ServerProcess) -> None:
    """Every point in order; a dead server, or one that stops answering /health after a
    point ran out of time, is restarted up to MAX_SERVER_RESTARTS times."""
    restarts = served = 0
    for index, point in enumerate(ctx.job["points"]):
        if not ctx.gate.wait(point["id"]):
            _missed(ctx, point, "cancelled", "the A/B was stopped before this point's turn")
            continue
        if not server.alive():
            server.reap()
            if restarts >= ctx.knobs.max_restarts:
                spent = f"restart budget exhausted (MAX_SERVER_RESTARTS={ctx.knobs.max_restarts})"
                _missed(ctx, point, "server-died", f"server not running; {spent}")
                continue
            restarts += 1
            log(f"server is gone: restart {restarts} of {ctx.knobs.max_restarts}")
            try:
                server.launch()
            except NotReady as exc:
                infra = str(exc) if exc.infrastructure else None
                _missed(ctx, point, "server-died", f"server restart failed: {exc}", infra=infra)
                continue
            served = 0
        if served:
            server.flush()
        status = _run_point(ctx, index, server)
        served += 1
        if status == "timeout" and server.alive() and not server.healthy():
            log("the server does not answer /health after a point ran out of time: stopping it")
            server.stop()


def _run_point(ctx: _Job, index: int, server: ServerProcess) -> str:
    job, knobs = ctx.job, ctx.knobs
    point = job["points"][index]
    where = knobs.where
    output = Path(commands.bench_output(point, where))
    client_log = Path(commands.bench_log(point, where))
    module = job["client"]["module"]
    limit_s, why = point_timeout(job, point, knobs)
    argv = commands.bench_argv(job, point, where)
    at_most = f"at most {limit_s:g}s, {why}"
    log(f"point {index + 1}/{len(job['points'])} {point['id']} ({at_most}): {shlex.join(argv)}")
    started_at, started = utc_now(), time.monotonic()
    env = {**os.environ, **job["client"]["env"]}
    try:
        output.unlink(missing_ok=True)
        client_log.write_bytes(b"")
        returncode = ctx.supervisor.run(module, argv, output=client_log, env=env, timeout_s=limit_s)
    except (OSError, ValueError) as exc:
        outcome = _Outcome("failed", f"cannot start {module}: {exc}")
        ran = "could not start"
    else:
        echo_tail(client_log, BENCH_TAIL_LINES)
        if returncode is None:
            outcome = _Outcome("timeout", f"{module} ran out of its {limit_s:g}s ({why})")
        else:
            outcome = _judge(module, point, returncode, output, client_log)
        ended = (
            "ran out of time" if returncode is None else f"exited with {describe_exit(returncode)}"
        )
        ran = f"{module} {ended}"
    wall_s = round(time.monotonic() - started, 3)
    # Read before the next flush, which resets the server's average.
    accept = server.accept_length() if job["spec"] != "none" and server.alive() else None
    if (outcome.status in ("failed", "timeout") or outcome.error) and not server.alive():
        outcome = _Outcome(
            "server-died", f"server process exited during the point; {outcome.error}"
        )
    metrics = record_rules.point_metrics(outcome.line, job["gpus"], accept, job["draft_tokens"])
    lacks = record_rules.needs_acceptance(job["spec"], point["osl"]) and accept is None
    if outcome.status == "ok" and lacks:
        error = "the speculative-decoding server reported no acceptance length"
        outcome = _Outcome("failed", error, outcome.line)
    result = record_doc.point_record(
        job,
        point,
        status=outcome.status,
        error=outcome.error,
        metrics=metrics,
        client_argv=argv,
        client_version=ctx.client_version,
        common=ctx.shared(),
        timings=Timings(
            started_at=started_at,
            ended_at=utc_now(),
            wall_time_s=wall_s,
            server_start_s=server.start_s,
            download_s=ctx.download_s,
            estimate_minutes=point["estimate_minutes"],
        ),
    )
    _keep(ctx, point, result)
    log(f"point {point['id']}: {outcome.status} ({ran}, {wall_s:.3f}s)")
    return outcome.status


def _judge(
    module: str, point: PointEntry, returncode: int, output: Path, client_log: Path
) -> _Outcome:
    """ok when the client exited 0 and its result line, with usable values, reports every
    prompt completed."""
    if returncode != 0:
        detail = tail(client_log, ERROR_TAIL_LINES)
        ended = f"exited with {describe_exit(returncode)}"
        return _Outcome("failed", f"{module} {ended}" + (f":\n{detail}" if detail else ""))
    line, reason = result_line(output)
    if line is None:
        return _Outcome("failed", f"{module} wrote no usable result line: {reason}")
    problems = record_rules.line_problems(line)
    if problems:
        return _Outcome("failed", f"{module} result line: {'; '.join(problems)}", line)
    done = line.get("completed")
    if done is None:
        return _Outcome("failed", f"{module} result line has no 'completed' count", line)
    if done != point["num_prompts"]:
        # The client ran to its end; the record's validity says the numbers cannot stand.
        return _Outcome("ok", f"{done} of {point['num_prompts']} requests completed", line)
    return _Outcome("ok", None, line)


def _missed(
    ctx: _Job,
    point: PointEntry,
    status: PointStatus,
    error: str,
    *,
    infra: str | None = None,
) -> None:
    """The record of a point that did not run, or not to its end (`infra`: why the runner
    could not run it)."""
    server = ctx.server
    result = record_doc.point_record(
        ctx.job,
        point,
        status=status,
        error=error,
        metrics=record_rules.point_metrics(None, ctx.job["gpus"], None, ctx.job["draft_tokens"]),
        client_argv=commands.bench_argv(ctx.job, point, ctx.knobs.where),
        client_version=ctx.client_version,
        common=ctx.shared(),
        # It never started; when it was given up places it in the run.
        timings=Timings(
            started_at=None,
            ended_at=utc_now(),
            wall_time_s=None,
            server_start_s=None if server is None else server.start_s,
            download_s=ctx.download_s,
            estimate_minutes=point["estimate_minutes"],
        ),
        infrastructure=infra,
    )
    _keep(ctx, point, result)
    log(f"point {point['id']}: {status} ({error})")


def _keep(ctx: _Job, point: PointEntry, result: PointRecord) -> None:
    ctx.records[point["id"]] = result  # first: a cancel during the write keeps it
    ctx.sink.write(f"{point['id']}.json", result)
    ctx.gate.done(point["id"])
