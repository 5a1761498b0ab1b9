"""Synthetic benchmark histories for the verdict-quality benchmark (bench_verdicts.py):
deterministic for a seed, standard library only.

The schedule is the shipped one: each cron group's configs run on the group's weekdays
(the OOB DeepSeek non-MTP group Monday and Wednesday, the MTP + Qwen group Tuesday and
Thursday, Mesh on Friday, all OOB configs on Saturday), each config over its own points,
and the nightly accuracy run lands in the same history every day.

Each point of each run is measured with noise (all on the log scale):
- throughput per GPU: coefficient of variation `cv`, half of its variance shared by every
  point of the run and config (one draw per run and config), half the point's own;
- interactivity (1 / TPOT) moves with throughput (a slower server is slower for each user
  too) plus a quarter of `cv` of its own; TTFT moves against it, with `cv` of its own and
  a heavy upper tail on the raw scale (a Pareto excess of index 3 and scale `cv`: 1.2% of
  TTFTs 10% or more above their level at CV 3%, 0.2% 20% or more);
- the acceptance rate of MTP points: 1% noise of its own;
- 1 run in 50 of a config has a one-run outlier 15% slower at one of its points (never
  the point of an outlier in the config's previous run: two in a row at one point are a
  two-run change, which the next run rightly confirms, not an outlier); 2% of
  point-runs fail (no valid value); 3% of a config's runs are lost whole;
- one OOB config per history is bimodal: 30% of its runs run 4% slower (another machine).

Injected changes (each one config, at a run of that config, lasting `length` runs of it,
then undone): a config-wide or single-point step of -2/-5/-10/-20%, drift of -0.2% a run,
a staircase of two -3% steps four runs apart, and a -10% step that arrives with a new
server fingerprint (the config changed), undone with the fingerprint.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

I_MAX = 100.0
SLOPE = 10.0
TTFT_MS = 120.0
OUTLIER = 1 / 50
OUTLIER_SIZE = -0.15
FAILED = 0.02
LOST = 0.03
BIMODAL_SHARE = 0.3
BIMODAL_SIZE = -0.04
DRIFT = -0.002
STEPS = (-0.02, -0.05, -0.10, -0.20)
KINDS = (
    *(("config", s) for s in STEPS),
    *(("point", s) for s in STEPS),
    ("drift", DRIFT),
    ("staircase", -0.03),
    ("fingerprint", -0.10),
)
LENGTH = {"drift": 30, "staircase": 12}
STEP_LENGTH = 8
GAP = 32  # clean runs between two changes of a config: its references clean again
WARMUP = 12


def part_sd(cv: float) -> float:
    """The standard deviation of each of the two parts of a point's log throughput: the
    part shared by the run's points and the point's own (half the variance each)."""
    return cv / math.sqrt(2)


@dataclass(frozen=True)
class ConfigSpec:
    name: str
    points: tuple[tuple[int, int, int], ...]  # (isl, osl, concurrency)
    weekdays: tuple[int, ...]  # 0 = Monday
    mtp: bool
    gpus: int


@dataclass(frozen=True)
class Injection:
    id: str
    kind: str
    size: float
    config: str
    start: int  # the config's run index where it starts
    length: int
    point: tuple[int, int, int] | None = None

    def active(self, k: int) -> bool:
        return self.start <= k < self.start + self.length

    def effect(self, k: int, point: tuple[int, int, int]) -> float:
        """The log speed factor at the config's run `k` and `point`."""
        if not self.active(k):
            return 0.0
        if self.kind == "point" and point != self.point:
            return 0.0
        if self.kind == "drift":
            return math.log(1 + self.size * (k - self.start + 1))
        if self.kind == "staircase":
            steps = 1 if k - self.start < 4 else 2
            return steps * math.log(1 + self.size)
        return math.log(1 + self.size)


@dataclass
class ConfigRun:
    config: str
    index: int  # k: the config's run index
    fingerprint: str
    # point -> metric -> value (None: the point failed)
    values: dict[tuple[int, int, int], dict[str, float] | None]
    interactivity: dict[tuple[int, int, int], float]
    outliers: frozenset[tuple[int, int, int]]


@dataclass
class Run:
    name: str
    day: int
    kind: str  # "benchmark" | "accuracy"
    image_digest: str
    sglang_version: str
    configs: dict[str, ConfigRun] = field(default_factory=dict)


@dataclass
class History:
    cv: float
    seed: int
    runs: list[Run]
    injections: list[Injection]
    specs: dict[str, ConfigSpec]
    bimodal: str | None


def _curve(concurrency: int) -> tuple[float, float]:
    i = I_MAX * 64 / (64 + concurrency)
    return i, SLOPE * (I_MAX - i)


def _pareto_excess(rng: random.Random, scale: float) -> float:
    """A Lomax (Pareto II) draw of index 3: P(X > x) = (1 + x / scale) ** -3."""
    draw: float = (1.0 - rng.random()) ** (-1 / 3)
    return scale * (draw - 1)


def plan(
    specs: Sequence[ConfigSpec], runs_of: dict[str, int], rng: random.Random, seed: int
) -> list[Injection]:
    """Injected changes: per config, one after the other with clean runs between, the kinds
    in a shuffled order."""
    out: list[Injection] = []
    for spec in specs:
        kinds = list(KINDS)
        rng.shuffle(kinds)
        k, i = WARMUP + rng.randrange(6), 0
        while True:
            kind, size = kinds[i % len(kinds)]
            length = LENGTH.get(kind, STEP_LENGTH)
            if k + length + 2 > runs_of[spec.name]:
                break
            point = rng.choice(spec.points) if kind == "point" else None
            out.append(
                Injection(
                    id=f"{seed}:{spec.name}#{len(out)}",
                    kind=kind,
                    size=size,
                    config=spec.name,
                    start=k,
                    length=length,
                    point=point,
                )
            )
            k += length + GAP + rng.randrange(4)
            i += 1
    return out


def generate(
    specs: Sequence[ConfigSpec],
    *,
    cv: float,
    days: int,
    seed: int,
    inject: bool,
    noisy: bool = True,
) -> History:
    """A history of `days` days (day 0 a Monday)."""
    rng = random.Random(seed)
    runs_of = {s.name: sum(1 for d in range(days) if d % 7 in s.weekdays) for s in specs}
    injections = plan(specs, runs_of, rng, seed) if inject else []
    by_config: dict[str, list[Injection]] = {}
    for inj in injections:
        by_config.setdefault(inj.config, []).append(inj)
    oob = [s.name for s in specs if 5 in s.weekdays]
    bimodal = rng.choice(oob) if noisy and oob else None
    level = {s.name: math.exp(rng.uniform(-0.5, 0.5)) for s in specs}
    count = dict.fromkeys(runs_of, 0)
    last: dict[str, frozenset[tuple[int, int, int]]] = {}
    half = part_sd(cv)
    runs: list[Run] = []
    for day in range(days):
        digest = f"sha256:{day:064x}"
        version = f"0.5.{day // 7}"
        if any(day % 7 in s.weekdays for s in specs):
            run = Run(
                name=f"d{day:04d}-benchmark", day=day, kind="benchmark",
                image_digest=digest, sglang_version=version,
            )  # fmt: skip
            for spec in specs:
                if day % 7 not in spec.weekdays:
                    continue
                k = count[spec.name]
                count[spec.name] += 1
                if noisy and rng.random() < LOST:
                    continue
                cr = _config_run(
                    rng, spec, k, by_config.get(spec.name, []), half, cv, level[spec.name],
                    bimodal == spec.name, noisy, last.get(spec.name, frozenset()),
                )  # fmt: skip
                run.configs[spec.name] = cr
                last[spec.name] = cr.outliers
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
        specs={s.name: s for s in specs}, bimodal=bimodal,
    )  # fmt: skip


def _config_run(
    rng: random.Random,
    spec: ConfigSpec,
    k: int,
    injections: Sequence[Injection],
    half: float,
    cv: float,
    level: float,
    bimodal: bool,
    noisy: bool,
    before: frozenset[tuple[int, int, int]],
) -> ConfigRun:
    shared = rng.gauss(0, half)
    if bimodal and rng.random() < BIMODAL_SHARE:
        shared += math.log(1 + BIMODAL_SIZE)
    fingerprint = f"fp-{spec.name}"
    for inj in injections:
        if inj.kind == "fingerprint" and inj.active(k):
            fingerprint = f"fp-{spec.name}-changed-{inj.id}"
    values: dict[tuple[int, int, int], dict[str, float] | None] = {}
    inter: dict[tuple[int, int, int], float] = {}
    outliers = set()
    if noisy and rng.random() < OUTLIER:
        point = rng.choice(spec.points)
        if point not in before:
            outliers.add(point)
    for point in spec.points:
        own = rng.gauss(0, half)
        speed = shared + own + sum(inj.effect(k, point) for inj in injections)
        if point in outliers:
            speed += math.log(1 + OUTLIER_SIZE)
        i0, t0 = _curve(point[2])
        interactivity = i0 * math.exp(speed + rng.gauss(0, cv / 4))
        ttft = math.exp(-speed + rng.gauss(0, cv)) + _pareto_excess(rng, cv)
        if noisy and rng.random() < FAILED:
            values[point] = None
            continue
        metrics = {
            "output_throughput_per_gpu": t0 * level * math.exp(speed),
            "median_tpot_ms": 1000.0 / interactivity,
            "median_ttft_ms": TTFT_MS * (1 + point[2] / 32) * ttft,
        }
        if spec.mtp:
            metrics["acceptance_rate"] = 0.65 * math.exp(rng.gauss(0, 0.01))
        values[point] = metrics
        inter[point] = interactivity
    return ConfigRun(
        config=spec.name, index=k, fingerprint=fingerprint, values=values,
        interactivity=inter, outliers=frozenset(outliers),
    )  # fmt: skip
