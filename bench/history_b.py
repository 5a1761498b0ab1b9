"""A second generator of synthetic histories, specified apart from verdict_history.py so that
the verdicts are judged on data their constants were not chosen on (`make bench`). It
shares only the shapes it hands over (History, Run, ConfigRun, Injection); its noise, its
schedule of changes and its draws are its own (numpy's generator, seeded).

- The shipped schedule: each config on its cron group's weekdays, an accuracy-only run
  every day between them; 3% of a config's runs absent, 2% of points failed.
- Throughput per GPU, on the log scale: a run offset shared by the config's points drawn
  from a Student t with 5 degrees of freedom (heavier tails than a normal), scaled to
  `cv` / sqrt(2); each point's own deviation normal, its standard deviation growing with
  the point's rank in concurrency from 0.6 to 1.4 times `cv` / sqrt(2) (the busiest
  points are the noisiest).
- Two runners carry the label: 30% of a config's runs land on the second, whose level for
  that config is 1% to 3% lower or higher (a machine of its own).
- TTFT and TPOT move with the run's speed, TTFT with a lognormal tail of its own.
- Changes early in a config's life, around its 12th and 24th run: a config-wide step of
  -2, -5 or -10% lasting 8 runs, a one-point step of -10% lasting 6, a drift of -0.2% a
  run over 30 runs, and one-run outliers of -15% at one point (1 run in 40); one config
  per history changes fingerprint at its 36th run with a -10% step that stays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from verdict_history import ConfigRun, ConfigSpec, History, Injection, Run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

RUNNER_B_SHARE = 0.3
ABSENT = 0.03
FAILED = 0.02
OUTLIER_RATE = 1 / 40
OUTLIER = -0.15
STEP_LENGTH = 8
POINT_LENGTH = 6
DRIFT = -0.002
DRIFT_LENGTH = 30
EARLY = (12, 24)
FINGERPRINT_AT = 36
TTFT_MS = 150.0


@dataclass(frozen=True)
class Outlier:
    config: str
    index: int
    point: tuple[int, int, int]


def _plan(specs: Sequence[ConfigSpec], rng: np.random.Generator, seed: int) -> list[Injection]:
    kinds = [("config", -0.05), ("config", -0.02), ("config", -0.10), ("point", -0.10),
             ("drift", DRIFT)]  # fmt: skip
    out: list[Injection] = []
    for n, spec in enumerate(specs):
        for j, start in enumerate(EARLY):
            kind, size = kinds[(n * len(EARLY) + j + seed) % len(kinds)]
            length = {"point": POINT_LENGTH, "drift": DRIFT_LENGTH}.get(kind, STEP_LENGTH)
            begin = start + int(rng.integers(-2, 3))
            if j == 1:
                begin = max(begin, out[-1].start + out[-1].length + 4)
            point = spec.points[int(rng.integers(len(spec.points)))] if kind == "point" else None
            out.append(
                Injection(
                    id=f"b{seed}:{spec.name}#{j}",
                    kind=kind,
                    size=size,
                    config=spec.name,
                    start=begin,
                    length=length,
                    point=point,
                )
            )
    return out


def generate_b(specs: Sequence[ConfigSpec], *, cv: float, days: int, seed: int) -> History:
    """A history of `days` days (day 0 a Monday) with the changes listed above."""
    rng = np.random.default_rng(10_000 + seed)
    injections = _plan(specs, rng, seed)
    changed = specs[int(rng.integers(len(specs)))].name
    injections.append(
        Injection(
            id=f"b{seed}:{changed}#fingerprint",
            kind="fingerprint",
            size=-0.10,
            config=changed,
            start=FINGERPRINT_AT,
            length=10**6,
        )
    )
    by_config: dict[str, list[Injection]] = {}
    for inj in injections:
        by_config.setdefault(inj.config, []).append(inj)
    runner_b = {s.name: float(rng.choice([-1, 1]) * rng.uniform(0.01, 0.03)) for s in specs}
    level = {s.name: float(np.exp(rng.uniform(-0.4, 0.4))) for s in specs}
    count = {s.name: 0 for s in specs}
    part = cv / math.sqrt(2)
    t_scale = math.sqrt(3 / 5)  # a t(5) draw times this has standard deviation 1
    runs: list[Run] = []
    for day in range(days):
        digest = f"sha256:{(day * 7919 + seed) % 16**12:012x}{'0' * 52}"
        version = f"0.6.{day // 10}"
        todays = [s for s in specs if day % 7 in s.weekdays]
        if todays:
            run = Run(
                name=f"d{day:04d}-benchmark", day=day, kind="benchmark",
                image_digest=digest, sglang_version=version,
            )  # fmt: skip
            for spec in todays:
                k = count[spec.name]
                count[spec.name] += 1
                if rng.random() < ABSENT:
                    continue
                shared = float(rng.standard_t(5)) * t_scale * part
                if rng.random() < RUNNER_B_SHARE:
                    shared += math.log1p(runner_b[spec.name])
                fingerprint = f"fp-{spec.name}"
                if spec.name == changed and k >= FINGERPRINT_AT:
                    fingerprint += "-v2"
                outlier = (
                    spec.points[int(rng.integers(len(spec.points)))]
                    if rng.random() < OUTLIER_RATE
                    else None
                )
                values: dict[tuple[int, int, int], dict[str, float] | None] = {}
                inter: dict[tuple[int, int, int], float] = {}
                ranked = sorted(spec.points, key=lambda p: p[2])
                for point in spec.points:
                    rank = ranked.index(point) / max(len(ranked) - 1, 1)
                    own = float(rng.normal(0, part * (0.6 + 0.8 * rank)))
                    speed = shared + own
                    speed += sum(i.effect(k, point) for i in by_config.get(spec.name, []))
                    if point == outlier:
                        speed += math.log1p(OUTLIER)
                    if rng.random() < FAILED:
                        values[point] = None
                        continue
                    base = 900.0 / (1 + point[2] / 48)
                    interactivity = 60.0 / (1 + point[2] / 64) * math.exp(speed)
                    values[point] = {
                        "output_throughput_per_gpu": base * level[spec.name] * math.exp(speed),
                        "median_tpot_ms": 1000.0 / interactivity,
                        "median_ttft_ms": TTFT_MS
                        * math.exp(-speed + float(rng.lognormal(0, cv)) - 1),
                    }
                    inter[point] = interactivity
                run.configs[spec.name] = ConfigRun(
                    config=spec.name,
                    index=k,
                    fingerprint=fingerprint,
                    values=values,
                    interactivity=inter,
                    outliers=frozenset({outlier} if outlier else set()),
                )
            runs.append(run)
        runs.append(
            Run(
                name=f"d{day:04d}-accuracy",
                day=day,
                kind="accuracy",
                image_digest=digest,
                sglang_version=version,
            )
        )
    return History(
        cv=cv, seed=seed, runs=runs, injections=injections,
        specs={s.name: s for s in specs}, bimodal=None,
    )  # fmt: skip
