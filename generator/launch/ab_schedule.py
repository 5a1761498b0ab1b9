"""On the runner: the turns of one A/B step, both sides at once or one container at a time."""

from __future__ import annotations

import shutil
import time

from generator.core import ab_order
from generator.launch import turns
from generator.launch.ab_side import SideContext, SideRun, log, side_job

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from generator.core.abjob import SideImage


def _gate_dir(ctx: SideContext, step: int, side: str) -> Path:
    folder = ctx.scratch / "ab" / f"turns-{step}-{side.lower()}"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    return folder


def _wait_for(ctx: SideContext, path: Path, runs: Sequence[SideRun]) -> bool:
    """Wait until `path` exists; False when a side's container ended first."""
    while not path.exists():
        if not all(r.alive() for r in runs):
            return path.exists()
        time.sleep(ctx.poll_s)
    return True


def parallel(
    ctx: SideContext, step: int, images: dict[str, SideImage], order: list[ab_order.Turn]
) -> list[tuple[SideRun, ab_order.Turn]]:
    entry = ctx.entry
    gpus = entry["gpus"]
    halves = {ab_order.A: ctx.devices[:gpus], ab_order.B: ctx.devices[gpus : 2 * gpus]}
    gates = {side: _gate_dir(ctx, step, side) for side in (ab_order.A, ab_order.B)}
    runs: dict[str, SideRun] = {}
    for side in (ab_order.A, ab_order.B):
        job = side_job(
            entry,
            name=f"{entry['id']}-ab{step}-{side.lower()}",
            image=images[side],
            order=[t for t in order if t.side == side],
            gate=str(gates[side]),
        )
        runs[side] = SideRun(ctx, job, side, halves[side])
    both = list(runs.values())
    ready = all(_wait_for(ctx, gates[s] / turns.READY, both) for s in (ab_order.A, ab_order.B))
    if not ready:
        ctx.broken = True
        log("a side's server never served: the A/B of this step stops")
    for index, turn in enumerate(order, 1):
        if not ready:
            break
        gate = gates[turn.side]
        (gate / f"{turn.tag}.go").write_text("", encoding="utf-8")
        log(f"turn {index}/{len(order)}: {turn.side} {turn.tag}")
        if not _wait_for(ctx, gate / f"{turn.tag}.done", both):
            log(f"side {turn.side} ended before its turn {turn.tag} was done")
            break
    for gate in gates.values():
        (gate / turns.STOP).write_text("", encoding="utf-8")
    for run in both:
        run.wait()
    return [(runs[t.side], t) for t in order]


def restart(
    ctx: SideContext, step: int, images: dict[str, SideImage], order: list[ab_order.Turn]
) -> list[tuple[SideRun, ab_order.Turn]]:
    entry = ctx.entry
    out: list[tuple[SideRun, ab_order.Turn]] = []
    for number, block in enumerate(ab_order.blocks(order), 1):
        side = block[0].side
        job = side_job(
            entry,
            name=f"{entry['id']}-ab{step}-{side.lower()}{number}",
            image=images[side],
            order=block,
            gate=None,
        )
        run = SideRun(ctx, job, side, ctx.devices)
        code = run.wait()
        log(f"block {number} ({side}, {len(block)} turns) ended with status {code}")
        out += [(run, t) for t in block]
    return out
