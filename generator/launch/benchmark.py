"""A benchmark job: one server for the whole job, its points swept in order with the job's
declared client (`commands.bench_argv`), one record per point."""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.launch import commands, preflight, record, summary
from generator.launch.console import echo_tail, log, tail
from generator.launch.contract import JobEntry, PointEntry
from generator.launch.knobs import Knobs
from generator.launch.process import Supervisor, describe_exit
from generator.launch.results import ERROR_TAIL_LINES, last_json_line, utc_now
from generator.launch.server import NotReady, Server

BENCH_TAIL_LINES = 60


@dataclass(frozen=True)
class _Outcome:
    status: str
    error: str | None
    line: dict[str, object] | None = None


@dataclass(frozen=True)
class _Job:
    """What the points of one job share."""

    job: JobEntry
    knobs: Knobs
    supervisor: Supervisor
    common: record.Common
    download_s: float | None
    client_version: str | None


def run_benchmark(job: JobEntry, knobs: Knobs, supervisor: Supervisor) -> int:
    """0 when every point is ok, 1 when one is not, 2 when the job could not run."""
    points = job["points"]
    log(f"job {job['id']}: {len(points)} point(s); results in {knobs.results_dir}")
    try:
        ready = preflight.prepare(job, knobs, supervisor)
    except preflight.Unready as exc:
        ctx = _Job(job, knobs, supervisor, exc.common, None, None)
        records = [
            _missed(ctx, p, "failed", f"infrastructure: {exc}", infra=str(exc)) for p in points
        ]
        _publish(ctx, records, 0)
        return 2
    module = job["client"]["module"]
    client_version = ready.versions["sglang"] if module.startswith("sglang.") else None
    ctx = _Job(job, knobs, supervisor, ready.common, ready.download_s, client_version)
    server = Server(job, knobs, supervisor)
    server.print_command()
    try:
        server.launch()
    except NotReady as exc:
        error = f"server did not become ready: {exc}"
        records = [_missed(ctx, p, "failed", error, server.start_s) for p in points]
        _publish(ctx, records, server.starts)
        return 2
    records = _sweep(ctx, server)
    _publish(ctx, records, server.starts)
    failures = sum(r["status"] != "ok" for r in records)
    log(f"{len(records) - failures} of {len(records)} point(s) ok; server starts: {server.starts}")
    return 1 if failures else 0


def _publish(ctx: _Job, records: list[dict[str, Any]], starts: int) -> None:
    text = summary.benchmark(ctx.job, records, starts, ctx.common.provenance)
    summary.publish(text, ctx.knobs.step_summary, ctx.knobs.results_dir)


def _sweep(ctx: _Job, server: Server) -> list[dict[str, Any]]:
    """Every point in order; a dead server is restarted up to MAX_SERVER_RESTARTS times."""
    records: list[dict[str, Any]] = []
    restarts = served = 0
    for index, point in enumerate(ctx.job["points"]):
        if not server.alive():
            server.reap()
            if restarts >= ctx.knobs.max_restarts:
                spent = f"restart budget exhausted (MAX_SERVER_RESTARTS={ctx.knobs.max_restarts})"
                records.append(_missed(ctx, point, "server-died", f"server not running; {spent}"))
                continue
            restarts += 1
            log(f"server is gone: restart {restarts} of {ctx.knobs.max_restarts}")
            try:
                server.launch()
            except NotReady as exc:
                error = f"server restart failed: {exc}"
                records.append(_missed(ctx, point, "server-died", error))
                continue
            served = 0
        if served:
            server.flush()
        records.append(_run_point(ctx, index, server))
        served += 1
    return records


def _run_point(ctx: _Job, index: int, server: Server) -> dict[str, Any]:
    job, knobs = ctx.job, ctx.knobs
    point = job["points"][index]
    where = knobs.where
    output = Path(commands.bench_output(point, where))
    client_log = Path(commands.bench_log(point, where))
    output.unlink(missing_ok=True)
    client_log.write_bytes(b"")
    argv = commands.bench_argv(job, point, where)
    log(f"point {index + 1}/{len(job['points'])} {point['id']}: {shlex.join(argv)}")
    started_at, started = utc_now(), time.monotonic()
    env = {**os.environ, **job["client"]["env"]}
    try:
        returncode = ctx.supervisor.run(job["client"]["module"], argv, output=client_log, env=env)
    except (OSError, ValueError) as exc:
        outcome = _Outcome("failed", f"cannot start {job['client']['module']}: {exc}")
        ran = "could not start"
    else:
        echo_tail(client_log, BENCH_TAIL_LINES)
        outcome = _judge(job, point, returncode, output, client_log)
        ended = "ran out of time" if returncode is None else describe_exit(returncode)
        ran = f"{job['client']['module']} exited with {ended}"
    wall_s = round(time.monotonic() - started, 3)
    # Read before the next flush, which resets the server's average.
    accept = server.accept_length() if job["spec"] != "none" and server.alive() else None
    if outcome.status == "failed" and not server.alive():
        outcome = _Outcome(
            "server-died", f"server process exited during the point; {outcome.error}"
        )
    metrics = record.point_metrics(outcome.line, job["gpus"], accept, job["draft_tokens"])
    if outcome.status == "ok" and record.needs_acceptance(job, point["osl"]) and accept is None:
        error = "the speculative-decoding server reported no acceptance length"
        outcome = _Outcome("failed", error, outcome.line)
    result = record.point_record(
        job,
        point,
        status=outcome.status,
        error=outcome.error,
        metrics=metrics,
        client_argv=argv,
        client_version=ctx.client_version,
        common=ctx.common,
        timings=record.timings(
            started_at=started_at,
            ended_at=utc_now(),
            wall_time_s=wall_s,
            server_start_s=server.start_s,
            download_s=ctx.download_s,
            estimate_minutes=point["estimate_minutes"],
        ),
    )
    record.write(knobs.results_dir / f"{point['id']}.json", result)
    log(f"point {point['id']}: {outcome.status} ({ran}, {wall_s:.3f}s)")
    return result


def _judge(
    job: JobEntry, point: PointEntry, returncode: int | None, output: Path, client_log: Path
) -> _Outcome:
    """ok when the client exited 0 and its result line reports every prompt completed."""
    module = job["client"]["module"]
    if returncode != 0:
        detail = tail(client_log, ERROR_TAIL_LINES)
        ended = (
            "ran out of time" if returncode is None else f"exited with {describe_exit(returncode)}"
        )
        return _Outcome("failed", f"{module} {ended}" + (f":\n{detail}" if detail else ""))
    line = last_json_line(output)
    if line is None:
        return _Outcome("failed", f"{module} wrote no result line to its --output-file")
    done = line.get("completed")
    if done != point["num_prompts"]:
        return _Outcome("failed", f"{done} of {point['num_prompts']} requests completed", line)
    return _Outcome("ok", None, line)


def _missed(
    ctx: _Job,
    point: PointEntry,
    status: str,
    error: str,
    server_start_s: float | None = None,
    *,
    infra: str | None = None,
) -> dict[str, Any]:
    """The record of a point that did not run (`infra`: why the runner could not run it)."""
    result = record.point_record(
        ctx.job,
        point,
        status=status,
        error=error,
        metrics=record.point_metrics(None, ctx.job["gpus"], None, ctx.job["draft_tokens"]),
        client_argv=commands.bench_argv(ctx.job, point, ctx.knobs.where),
        client_version=ctx.client_version,
        common=ctx.common,
        timings=record.timings(
            started_at=None,
            ended_at=None,
            wall_time_s=None,
            server_start_s=server_start_s,
            download_s=ctx.download_s,
            estimate_minutes=point["estimate_minutes"],
        ),
        infrastructure=infra,
    )
    record.write(ctx.knobs.results_dir / f"{point['id']}.json", result)
    log(f"point {point['id']}: {status} ({error})")
    return result
