"""On the runner: an A/B job's steps (confirmation, bisection), their documents and ab.json."""

from __future__ import annotations

import os

from generator.core import ab_order, ab_verdict, bisection
from generator.core.abjob import noise_of
from generator.launch import record_doc
from generator.launch.ab_schedule import parallel, restart
from generator.launch.ab_side import SideContext, log

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.abjob import AbSummary, SideImage, StepSummary, TurnDocument
    from generator.core.record_types import PointRecord

SCHEMA = "sglang-ci/confirmation/1"
SUMMARY_SCHEMA = "sglang-ci/ab/1"
FOLDER = "confirmation"


def _document(
    ctx: SideContext,
    *,
    step: int,
    index: int,
    turn: ab_order.Turn,
    images: dict[str, SideImage],
    record: PointRecord | None,
) -> TurnDocument:
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
        "images": {side: image.copy() for side, image in images.items()},
        "record": record,
    }


def measure(
    ctx: SideContext, step: int, a: SideImage, b: SideImage
) -> tuple[str, list[ab_verdict.Judgement]]:
    """One A/B of `a` against `b`: its documents written, its verdict."""
    conf = ctx.entry["confirmation"]
    images = {ab_order.A: a, ab_order.B: b}
    order = ab_order.turns(conf["repeats"], [p["id"] for p in ctx.entry["points"]], ctx.how)
    log(
        f"step {step}: A {a['image']} against B {b['image']}, {ctx.how}, "
        f"{len(order)} turns, {ab_order.launches(ctx.how, conf['repeats'])} server launches"
    )
    done = (parallel if ctx.how == ab_order.PARALLEL else restart)(ctx, step, images, order)
    folder = ctx.results / FOLDER / ctx.entry["id"] / f"step-{step}"
    measured = []
    for index, (run, turn) in enumerate(done, 1):
        record, measurement = run.measurement(turn)
        measured.append(measurement)
        ctx.failed_turns += measurement.metrics is None
        doc = _document(ctx, step=step, index=index, turn=turn, images=images, record=record)
        record_doc.write(folder / f"{turn.side.lower()}-{turn.tag}.json", doc)
    rules = {
        name: ab_verdict.Rule(higher_is_better=r["higher_is_better"], min_change=r["min_change"])
        for name, r in conf["metrics"].items()
    }
    noise = noise_of(conf)
    verdict, judgements = ab_verdict.judge_step(measured, rules, conf["level"], ctx.how, noise)
    for j in judgements:
        interval = "-" if j.low is None else f"[{j.low:.4f}, {j.high:.4f}]"
        z = "" if j.z is None else f", z {j.z:.2f} (noise: {noise.source})"
        log(f"step {step}: {j.what} B/A {j.ratio} {interval}{z}: {j.verdict}")
    log(f"step {step}: {verdict}")
    return verdict, judgements


def run_steps(ctx: SideContext) -> AbSummary:
    """The confirmation and, when it confirms, the bisection; the job's ab.json."""
    conf = ctx.entry["confirmation"]
    steps: list[StepSummary] = []

    def one(step: int, b: SideImage, candidate: int | None) -> str:
        verdict, judgements = measure(ctx, step, conf["a"], b)
        steps.append(
            {
                "step": step,
                "candidate": candidate,
                "a": conf["a"].copy(),
                "b": b.copy(),
                "verdict": verdict,
                "judgements": [dict(j.__dict__) for j in judgements],
            }
        )
        return verdict

    first = one(0, conf["b"], None)
    candidates = conf["candidates"]
    tried: list[tuple[int, str]] = []
    if first == ab_verdict.CONFIRMED and not ctx.broken:
        while (
            mid := bisection.bisect_next(len(candidates), tried, conf["max_bisect_steps"])
        ) is not None:
            tried.append((mid, one(len(tried) + 1, candidates[mid], mid)))
            if ctx.broken:
                break
    bounds = bisection.bisect_bounds(len(candidates), tried)
    return {
        "schema": SUMMARY_SCHEMA,
        "event": conf["event"],
        "job_id": ctx.entry["id"],
        "mode": ctx.how,
        "repeats": conf["repeats"],
        "verdict": first,
        "steps": steps,
        "bisect": {
            "candidates": [c.copy() for c in candidates],
            "good": bounds.good,
            "bad": bounds.bad,
            "exact": bounds.exact,
        },
    }
