"""On the runner: one A/B side's container of the launcher (`SideRun`), and the job's state."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import IO, cast

from generator.core import ab_order, ab_verdict, docker_run, jsonread
from generator.core.console import say
from generator.core.knob_table import DEFAULTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from generator.core.abjob import ConfirmationEntry, SideImage
    from generator.core.contract import JobEntry
    from generator.core.record_types import PointRecord

PROGRAM = "scripts/run_benchmark.sh"


def log(message: str) -> None:
    say(f"[confirm {time.strftime('%H:%M:%S', time.gmtime())}] {message}")


@dataclass
class SideContext:
    entry: ConfirmationEntry
    environ: Mapping[str, str]
    workspace: str
    scratch: Path  # the job file's directory: mounted in every container
    devices: list[str]
    results: Path
    passed: list[str]
    poll_s: float
    container: str = "sglang-ci"  # the runner's container name; a side adds -a or -b
    how: str = ab_order.RESTART
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
    both sides, generator/confirm/aa_noise.py) restarts: what it measures is a launch."""
    conf = entry["confirmation"]
    found = render_devices(devices)
    if found is None or conf["a"]["image_digest"] == conf["b"]["image_digest"]:
        return ab_order.RESTART
    return ab_order.mode(entry["gpus"], len(found))


def side_job(
    entry: ConfirmationEntry,
    *,
    name: str,
    image: SideImage,
    order: Sequence[ab_order.Turn],
    gate: str | None,
) -> JobEntry:
    """An ordinary benchmark job of one side: the entry's server and client, `image`,
    and the turns' points in order (each `<point id>-r<repeat>`)."""
    points = {p["id"]: p for p in entry["points"]}
    # The entry less its confirmation block: the job check_confirmation checked (check_job).
    job = cast("JobEntry", {k: v for k, v in entry.items() if k != "confirmation"})
    job.update(
        {
            "id": name,
            "image": image["image"],
            "image_requested": image["image_requested"],
            "image_tag": image["image_tag"],
            "image_digest": image["image_digest"],
            "image_resolution": "digest",
            "points": [{**points[t.point], "id": t.tag} for t in order],
        }
    )
    if gate is not None:
        job["turns"] = gate
    return job


def _pump(stream: IO[bytes], prefix: str) -> None:
    for line in iter(stream.readline, b""):
        say(f"{prefix} {line.decode('utf-8', errors='replace').rstrip()}")


class SideRun:
    """One container of one side: `docker run` of the launcher on a side job."""

    def __init__(self, ctx: SideContext, job: JobEntry, side: str, devices: list[str]) -> None:
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
        port += 1 if side == ab_order.B else 0
        env = {**ctx.environ, "RESULTS_DIR": str(self.results), "SGLANG_PORT": str(port)}
        passed = sorted({*ctx.passed, "RESULTS_DIR", "SGLANG_PORT"})
        argv = docker_run.container_argv(
            job,
            name=self.name,
            devices=devices,
            workspace=ctx.workspace,
            scratch=str(ctx.scratch),
            passed=passed,
            program=PROGRAM,
            entry_file=str(path),
        )
        subprocess.run(["docker", "rm", "--force", self.name], capture_output=True, check=False)
        log(f"side {side}: {' '.join(argv)}")
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

    def measurement(self, turn: ab_order.Turn) -> tuple[PointRecord | None, ab_verdict.Measurement]:
        """The turn's record (None when absent or unreadable) and its measurement."""
        try:
            data = jsonread.load(self.results / f"{turn.tag}.json")
        except (OSError, ValueError):
            data = None
        # Written by the side's launcher (launch/benchmark_job.py, record_doc.point_record).
        record = cast("PointRecord", data) if isinstance(data, dict) else None
        return record, ab_verdict.from_record(turn.side, turn.repeat, turn.point, record)
