"""On the runner: an A/B confirmation job (abjob.py), `run_in_container.py confirm FILE`.

The job's affected points are measured on the last good image (A) and the current one
(B), interleaved (ab.py), with the job's server args, env and client on both: each side
is an ordinary benchmark job run by the launcher in its own container of its image.

- `parallel` (the runner's GPU allocation holds two servers of the layout): both
  containers start at once, each on its own half of the allocated GPUs and its own port;
  each point waits for its turn (turns.py), so one side measures while the other idles:
  two server launches.
- `restart`: one container at a time, a block of turns each (A | B B | A A | ...):
  K + 1 server launches.

When A/B confirms the event and nightly images lie between A and B, the job bisects
among them (at most `max_bisect_steps` more A/Bs of the last good image against one of
them) to name the first bad one. Every measurement becomes one confirmation document
(schema sglang-ci/confirmation/1) in RESULTS_DIR/confirmation/, wrapping the launcher's
record: a document no baseline reads as a run's record. `ab.json` beside them holds the
steps and their verdicts.

Exit status: 0 every turn measured; 1 a turn without a valid record; 2 bad input or a
side that never served.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

from generator.launch import ab, commands, jsonread, record, turns
from generator.launch.abjob import check_confirmation, noise_of
from generator.launch.console import say
from generator.launch.container import PASSED, checkout_dir, container_name, devices
from generator.launch.field_checks import load_object
from generator.launch.knobs import DEFAULTS
from generator.launch.launch_errors import (
    FAILED,
    INFRASTRUCTURE,
    OK,
    InputError,
    LaunchError,
    error,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from types import FrameType

    from generator.launch.abjob import ConfirmationEntry, SideImage
    from generator.launch.contract import JobEntry

SCHEMA = "sglang-ci/confirmation/1"
SUMMARY_SCHEMA = "sglang-ci/ab/1"
FOLDER = "confirmation"
PROGRAM = "scripts/run_benchmark.sh"
STOP_WAIT_S = 30.0


def _log(message: str) -> None:
    say(f"[confirm {time.strftime('%H:%M:%S', time.gmtime())}] {message}")


class Stopped(Exception):
    """SIGINT or SIGTERM reached the orchestrator."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@dataclass
class Context:
    entry: ConfirmationEntry
    environ: Mapping[str, str]
    workspace: str
    scratch: Path  # the job file's directory: mounted in every container
    devices: list[str]
    results: Path
    passed: list[str]
    poll_s: float
    container: str = "sglang-ci"  # the runner's container name; a side adds -a or -b
    how: str = ab.RESTART
    children: list[subprocess.Popen[bytes]] = field(default_factory=list)
    failed_turns: int = 0
    broken: bool = False  # a side never served


def render_devices(devices: Sequence[str]) -> list[str] | None:
    """The allocation's `--device=/dev/dri/renderD<n>` flags when every one is a render
    node (one per GPU), else None (the GPUs cannot be split between two servers)."""
    paths = [d.removeprefix("--device=") for d in devices]
    if not paths or not all(p.startswith("/dev/dri/renderD") for p in paths):
        return None
    return list(devices)


def choose_mode(entry: ConfirmationEntry, devices: Sequence[str]) -> str:
    """`parallel` when two servers fit on the runner's GPUs, but an A/A (the same image on
    both sides, generator/confirm/noise.py) restarts: what it measures is a launch."""
    conf = entry["confirmation"]
    found = render_devices(devices)
    if found is None or conf["a"]["image_digest"] == conf["b"]["image_digest"]:
        return ab.RESTART
    return ab.mode(entry["gpus"], len(found))


def side_job(
    entry: ConfirmationEntry,
    *,
    name: str,
    image: SideImage,
    order: Sequence[ab.Turn],
    gate: str | None,
) -> dict[str, Any]:
    """An ordinary benchmark job of one side: the entry's server and client, `image`,
    and the turns' points in order (each `<point id>-r<repeat>`)."""
    points = {p["id"]: p for p in entry["points"]}
    job: dict[str, Any] = {k: v for k, v in entry.items() if k != "confirmation"}
    job.update(
        id=name,
        image=image["image"],
        image_requested=image["image_requested"],
        image_tag=image["image_tag"],
        image_digest=image["image_digest"],
        image_resolution="digest",
        points=[{**points[t.point], "id": t.tag} for t in order],
    )
    if gate is not None:
        job["turns"] = gate
    return job


def _pump(stream: IO[bytes], prefix: str) -> None:
    for line in iter(stream.readline, b""):
        say(f"{prefix} {line.decode('utf-8', errors='replace').rstrip()}")


class Run:
    """One container of one side: `docker run` of the launcher on a side job."""

    def __init__(self, ctx: Context, job: dict[str, Any], side: str, devices: list[str]) -> None:
        folder = ctx.scratch / "ab" / job["id"]
        if folder.exists():
            shutil.rmtree(folder)  # a re-attempt's leftovers, in the job's own scratch
        folder.mkdir(parents=True)
        self.results = folder / "results"
        self.side = side
        path = folder / "job.json"
        path.write_text(json.dumps(job), encoding="utf-8")
        self.name = f"{ctx.container}-{side.lower()}"
        port = int(ctx.environ.get("SGLANG_PORT") or DEFAULTS["SGLANG_PORT"])
        port += 1 if side == ab.B else 0
        env = {**ctx.environ, "RESULTS_DIR": str(self.results), "SGLANG_PORT": str(port)}
        passed = sorted({*ctx.passed, "RESULTS_DIR", "SGLANG_PORT"})
        argv = commands.container_argv(
            cast("JobEntry", job),
            name=self.name,
            devices=devices,
            workspace=ctx.workspace,
            scratch=str(ctx.scratch),
            passed=passed,
            program=PROGRAM,
            entry_file=str(path),
        )
        subprocess.run(["docker", "rm", "--force", self.name], capture_output=True, check=False)
        _log(f"side {side}: {' '.join(argv)}")
        self.proc = subprocess.Popen(
            argv,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        ctx.children.append(self.proc)
        assert self.proc.stdout is not None
        self._pump = threading.Thread(target=_pump, args=(self.proc.stdout, f"[{side}]"))
        self._pump.start()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def wait(self) -> int:
        code = self.proc.wait()
        self._pump.join()
        return code

    def measurement(self, turn: ab.Turn) -> tuple[dict[str, Any] | None, ab.Measurement]:
        """The turn's record (None when absent or unreadable) and its measurement."""
        try:
            data = jsonread.load(self.results / f"{turn.tag}.json")
        except (OSError, ValueError):
            data = None
        valid = isinstance(data, dict) and bool(data.get("validity", {}).get("valid"))
        metrics = data.get("metrics") if valid and isinstance(data, dict) else None
        return data, ab.Measurement(
            side=turn.side, repeat=turn.repeat, point=turn.point, metrics=metrics
        )


def _gate_dir(ctx: Context, step: int, side: str) -> Path:
    folder = ctx.scratch / "ab" / f"turns-{step}-{side.lower()}"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder


def _wait_for(ctx: Context, path: Path, runs: Sequence[Run]) -> bool:
    """Wait until `path` exists; False when a side's container ended first."""
    while not path.exists():
        if not all(r.alive() for r in runs):
            return path.exists()
        time.sleep(ctx.poll_s)
    return True


def _parallel(
    ctx: Context, step: int, images: dict[str, SideImage], order: list[ab.Turn]
) -> list[tuple[Run, ab.Turn]]:
    entry = ctx.entry
    gpus = entry["gpus"]
    halves = {ab.A: ctx.devices[:gpus], ab.B: ctx.devices[gpus : 2 * gpus]}
    gates = {side: _gate_dir(ctx, step, side) for side in (ab.A, ab.B)}
    runs: dict[str, Run] = {}
    for side in (ab.A, ab.B):
        job = side_job(
            entry,
            name=f"{entry['id']}-ab{step}-{side.lower()}",
            image=images[side],
            order=[t for t in order if t.side == side],
            gate=str(gates[side]),
        )
        runs[side] = Run(ctx, job, side, halves[side])
    both = list(runs.values())
    ready = all(_wait_for(ctx, gates[s] / turns.READY, both) for s in (ab.A, ab.B))
    if not ready:
        ctx.broken = True
        _log("a side's server never served: the A/B of this step stops")
    for index, turn in enumerate(order, 1):
        if not ready:
            break
        gate = gates[turn.side]
        (gate / f"{turn.tag}.go").write_text("", encoding="utf-8")
        _log(f"turn {index}/{len(order)}: {turn.side} {turn.tag}")
        if not _wait_for(ctx, gate / f"{turn.tag}.done", both):
            _log(f"side {turn.side} ended before its turn {turn.tag} was done")
            break
    for gate in gates.values():
        (gate / turns.STOP).write_text("", encoding="utf-8")
    for run in both:
        run.wait()
    return [(runs[t.side], t) for t in order]


def _restart(
    ctx: Context, step: int, images: dict[str, SideImage], order: list[ab.Turn]
) -> list[tuple[Run, ab.Turn]]:
    entry = ctx.entry
    out: list[tuple[Run, ab.Turn]] = []
    for number, block in enumerate(ab.blocks(order), 1):
        side = block[0].side
        job = side_job(
            entry,
            name=f"{entry['id']}-ab{step}-{side.lower()}{number}",
            image=images[side],
            order=block,
            gate=None,
        )
        run = Run(ctx, job, side, ctx.devices)
        code = run.wait()
        _log(f"block {number} ({side}, {len(block)} turns) ended with status {code}")
        out += [(run, t) for t in block]
    return out


def _document(
    ctx: Context,
    *,
    step: int,
    index: int,
    turn: ab.Turn,
    images: dict[str, SideImage],
    data: dict[str, Any] | None,
) -> dict[str, Any]:
    conf = ctx.entry["confirmation"]
    return {
        "schema": SCHEMA,
        "event": conf["event"],
        "job_id": ctx.entry["id"],
        # A job run again ("Re-run failed jobs") writes its turns again: its attempt's stand.
        "run_attempt": os.environ.get("GITHUB_RUN_ATTEMPT") or None,
        "step": step,
        "order": index,
        "mode": ctx.how,
        "side": turn.side,
        "repeat": turn.repeat,
        "point": turn.point,
        "images": {side: dict(image) for side, image in images.items()},
        "record": data,
    }


def measure(ctx: Context, step: int, a: SideImage, b: SideImage) -> tuple[str, list[ab.Judgement]]:
    """One A/B of `a` against `b`: its documents written, its verdict."""
    conf = ctx.entry["confirmation"]
    images = {ab.A: a, ab.B: b}
    order = ab.turns(conf["repeats"], [p["id"] for p in ctx.entry["points"]], ctx.how)
    _log(
        f"step {step}: A {a['image']} against B {b['image']}, {ctx.how}, "
        f"{len(order)} turns, {ab.launches(ctx.how, conf['repeats'])} server launches"
    )
    done = (_parallel if ctx.how == ab.PARALLEL else _restart)(ctx, step, images, order)
    folder = ctx.results / FOLDER / ctx.entry["id"] / f"step-{step}"
    measured = []
    for index, (run, turn) in enumerate(done, 1):
        data, measurement = run.measurement(turn)
        measured.append(measurement)
        ctx.failed_turns += measurement.metrics is None
        doc = _document(ctx, step=step, index=index, turn=turn, images=images, data=data)
        record.write(folder / f"{turn.side.lower()}-{turn.tag}.json", doc)
    rules = {
        name: ab.Rule(higher_is_better=r["higher_is_better"], min_change=r["min_change"])
        for name, r in conf["metrics"].items()
    }
    noise = noise_of(conf)
    verdict, judgements = ab.judge_step(measured, rules, conf["level"], ctx.how, noise)
    for j in judgements:
        interval = "-" if j.low is None else f"[{j.low:.4f}, {j.high:.4f}]"
        z = "" if j.z is None else f", z {j.z:.2f} (noise: {noise.source})"
        _log(f"step {step}: {j.what} B/A {j.ratio} {interval}{z}: {j.verdict}")
    _log(f"step {step}: {verdict}")
    return verdict, judgements


def run_steps(ctx: Context) -> dict[str, Any]:
    """The confirmation and, when it confirms, the bisection; the job's ab.json."""
    conf = ctx.entry["confirmation"]
    steps: list[dict[str, Any]] = []

    def one(step: int, b: SideImage, candidate: int | None) -> str:
        verdict, judgements = measure(ctx, step, conf["a"], b)
        steps.append(
            {
                "step": step,
                "candidate": candidate,
                "a": dict(conf["a"]),
                "b": dict(b),
                "verdict": verdict,
                "judgements": [dict(j.__dict__) for j in judgements],
            }
        )
        return verdict

    first = one(0, conf["b"], None)
    candidates = conf["candidates"]
    tried: list[tuple[int, str]] = []
    if first == ab.CONFIRMED and not ctx.broken:
        while (mid := ab.bisect_next(len(candidates), tried, conf["max_bisect_steps"])) is not None:
            tried.append((mid, one(len(tried) + 1, candidates[mid], mid)))
            if ctx.broken:
                break
    bounds = ab.bisect_bounds(len(candidates), tried)
    return {
        "schema": SUMMARY_SCHEMA,
        "event": conf["event"],
        "job_id": ctx.entry["id"],
        "mode": ctx.how,
        "repeats": conf["repeats"],
        "verdict": first,
        "steps": steps,
        "bisect": {
            "candidates": [dict(c) for c in candidates],
            "good": bounds.good,
            "bad": bounds.bad,
            "exact": bounds.exact,
        },
    }


def run_confirmation(
    entry: ConfirmationEntry,
    *,
    environ: Mapping[str, str],
    workspace: str,
    scratch: Path,
    devices: list[str],
    passed: list[str],
    container: str,
) -> int:
    results = Path(environ.get("RESULTS_DIR") or Path(workspace, "results"))
    if not results.is_absolute():
        results = Path(workspace, results)
    poll = float(environ.get("READY_POLL_S") or DEFAULTS["READY_POLL_S"])
    ctx = Context(
        entry=entry,
        environ=environ,
        workspace=workspace,
        scratch=scratch,
        devices=devices,
        results=results,
        passed=passed,
        poll_s=poll,
        container=container,
        how=choose_mode(entry, devices),
    )
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def stop(signum: int, frame: FrameType | None) -> None:
        del frame
        raise Stopped(signum)

    for signum in previous:
        signal.signal(signum, stop)
    try:
        summary = run_steps(ctx)
    except Stopped as exc:
        _log(f"received {exc}: stopping the containers")
        _stop(ctx)
        return 128 + exc.signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    record.write(results / FOLDER / entry["id"] / "ab.json", summary)
    if ctx.broken:
        return INFRASTRUCTURE
    return FAILED if ctx.failed_turns else OK


def _stop(ctx: Context) -> None:
    for proc in ctx.children:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_WAIT_S
    for proc in ctx.children:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main_confirm(
    path: str, environ: Mapping[str, str] | None = None, *, checkout: str | None = None
) -> int:
    """`run_in_container.py confirm FILE [CHECKOUT]`: check the job, then run it."""
    env = dict(os.environ if environ is None else environ)
    try:
        workspace = checkout_dir(checkout, env)
        entry = check_confirmation(load_object(Path(path)), path)
        cache = entry["container"]["model_cache"]
        if cache is not None and not Path(cache).is_dir():
            msg = f"the runner label's model cache {cache} is not a directory here"
            raise InputError(msg)
        found = devices(entry)
    except LaunchError as exc:
        return error("run_in_container.py", exc)
    return run_confirmation(
        entry,
        environ=env,
        workspace=workspace,
        scratch=Path(path).resolve().parent,
        devices=found,
        passed=[name for name in PASSED if name in env],
        container=container_name(entry, env),
    )
