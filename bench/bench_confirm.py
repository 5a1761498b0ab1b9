"""The A/B verdict's quality on synthetic paired measurements: `make bench` (not part of
`make test`). Prints, per noise level, mode and repeats K, how often an A/B of two images
is confirmed, cleared or inconclusive for a true change of 0, -2, -4, -5, -6, -8 and -10%
of throughput per GPU (minimum change 5%, level 95%, two points per job).

The noise of one measurement (same runner, back to back) has three parts:
- the measurement itself, independent per turn (`cv`);
- the server launch: a constant offset for every turn one server process serves
  (`launch`); with both servers up at once each side has one launch for the whole job
  (the offsets never average out), restarting gives each block its own;
- the GPUs: in `parallel` mode A and B run on different halves of the runner, a constant
  offset between the halves (`gpus`).
A shared drift of the machine over the job moves both sides alike and is left out.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generator.core import ab_noise, ab_order, ab_verdict  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TRIALS = 200
CHANGES = (0.0, -0.02, -0.04, -0.05, -0.06, -0.08, -0.10)
NOISE = (  # (cv, launch, gpus)
    (0.01, 0.005, 0.005),
    (0.02, 0.01, 0.01),
    (0.04, 0.02, 0.02),  # a point's own noise at a nightly CV of 6% (bench_verdicts.py)
)
POINTS = ("p1", "p2")
MIN_CHANGE = 0.05
LEVEL = 0.95  # regression.confirm.level's default: confirmed at z >= 1.645, one-sided


def measure(
    rng: random.Random,
    how: str,
    k: int,
    changes: Mapping[str, float],
    noise: tuple[float, ...],
    metric: str = "t",
) -> list[ab_verdict.Measurement]:
    """Every turn of one A/B job over the points of `changes` (point id -> B's true change
    against A), measured with `noise` (cv, launch, gpus) as the module docstring says."""
    cv, launch, gpus = noise
    order = ab_order.turns(k, changes, how)
    offsets: dict[object, float] = {}
    if how == ab_order.PARALLEL:
        offsets = {side: rng.gauss(0, launch) for side in (ab_order.A, ab_order.B)}
        offsets[ab_order.B] += rng.gauss(0, gpus)
    measured = []
    for block in ab_order.blocks(order):
        offset = offsets.get(block[0].side) if how == ab_order.PARALLEL else rng.gauss(0, launch)
        for turn in block:
            base = 1000.0 * (1 + changes[turn.point] if turn.side == ab_order.B else 1.0)
            value = base * (1 + (offset or 0.0)) * (1 + rng.gauss(0, cv))
            measured.append(
                ab_verdict.Measurement(
                    side=turn.side,
                    repeat=turn.repeat,
                    point=turn.point,
                    metrics={metric: value},
                )
            )
    return measured


def trial(rng: random.Random, how: str, k: int, change: float, noise: tuple[float, ...]) -> str:
    measured = measure(rng, how, k, dict.fromkeys(POINTS, change), noise)
    rule = {"t": ab_verdict.Rule(higher_is_better=True, min_change=MIN_CHANGE)}
    verdict, _ = ab_verdict.judge_step(measured, rule, LEVEL, how, ab_noise.DEFAULT_NOISE)
    return verdict


def main() -> int:
    rng = random.Random(2026)
    print(
        f"A/B verdicts over {TRIALS} synthetic jobs each (min_change {MIN_CHANGE:.0%}, "
        f"level {LEVEL:.0%} one-sided, {len(POINTS)} points, judged with the default noise "
        "model): confirmed / cleared / inconclusive, %"
    )
    print()
    header = " | ".join(f"{c:+.0%}" for c in CHANGES)
    print(f"| noise (cv, launch, GPUs) | mode | K | {header} |")
    print("|---|---|---|" + "---|" * len(CHANGES))
    for noise in NOISE:
        for how in (ab_order.PARALLEL, ab_order.RESTART):
            for k in (2, 3, 5):
                cells = []
                for change in CHANGES:
                    got = [trial(rng, how, k, change, noise) for _ in range(TRIALS)]
                    share = [
                        100 * got.count(v) / TRIALS
                        for v in (ab_verdict.CONFIRMED, ab_verdict.CLEARED)
                    ]
                    rest = 100 - sum(share)
                    cells.append(f"{share[0]:.0f} / {share[1]:.0f} / {rest:.0f}")
                label = ", ".join(f"{x:.1%}" for x in noise)
                print(f"| {label} | {how} | {k} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
