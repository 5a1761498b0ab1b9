"""How good the verdicts are, on synthetic histories of the shipped schedule: `make bench`
(not part of `make test`).

Each history is judged night by night as `results compare` judges it
(generator/verdicts: every server's series replayed with the noise the whole history
measures so far), on throughput per GPU (what every target is stated on). Two
generators: verdict_history.py (the *tuning* generator: the policy's constants were chosen
on its seeds 1-6) and history_b.py (specified apart: heavier tails, a second runner,
changes early in a config's life, a config that changes fingerprint), and unseen seeds of
both. Each is judged history-only and with the A/B: every suspected, unconfirmed event
gets an A/B that night (at most `confirm.max_jobs` a night), measured as
bench_confirm.py's restart mode measures a job (K = 3) and judged by the real verdict
(generator/core/ab_verdict.py, one-sided at the policy's level), confirmed or cleared, else left
to the runs.

Beside the rule, on the held-out sets, on each config's level series (the median over its
points of log throughput) night by night over the last 2 x `window` runs: Apache Otava
(bench/otava_nightly.py, in .venv-otava) and E-Divisive (signal-processing-algorithms),
a change confirmed when a change point lies in the last LAST runs with the runs after it
worse. Otava's change points carry p-values: its threshold is set where its false
confirmations per 1000 clean point-nights match the rule's own (history only) on the same
histories, the most favourable threshold it could be given; E-Divisive runs at its
permutation test's 5%, its false confirmations printed beside.

    python bench/bench_verdicts.py [--quick | --set tuning|unseen|generator2] [--workers N]

Figures (CV 3%):
- false alarms per 1000 clean point-nights: a confirmed event of a config with no change
  injected at the time (nor in the 3 runs before), counted on each run that reports it,
  per point measured on clean config-runs;
- clean runs red: a cron group's run with no injected change active whose events include
  one the run newly confirmed;
- a -5% config-wide step suspected on its first run; confirmed within 2 and 4 of the
  config's measured runs; -10% one-point steps confirmed within 2; -2% config-wide steps
  confirmed within 7; one-run -15% outliers confirmed; events per config-wide step (one
  id for a step: the share of steps reported under exactly one id, and the most ids any
  got); drifts of -0.2% a run confirmed before they reach -5%;
- A/B jobs per clean server-run.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from generator.catalog.confirm_section import Confirm
    from generator.catalog.regression import Policy
    from generator.verdicts.model import Event

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_confirm  # noqa: E402
from history_b import generate_b  # noqa: E402
from signal_processing_algorithms.energy_statistics import energy_statistics  # noqa: E402
from verdict_ceiling import AB, ceiling  # noqa: E402
from verdict_history import ConfigRun, ConfigSpec, History, Injection, generate  # noqa: E402

from generator.catalog import load  # noqa: E402
from generator.core import ab_noise, ab_order, ab_verdict  # noqa: E402
from generator.expand import expand  # noqa: E402
from generator.results.history import PointKey, RunInfo, Sample, ServerKey, ServerSeries  # noqa: E402
from generator.verdicts.judge import history_noise, judge_server  # noqa: E402

THROUGHPUT = "output_throughput_per_gpu"
DAYS = 364
CV = 0.03
AB_NOISE = bench_confirm.NOISE[1]  # (cv, launch, GPUs): 2%, 1%, 1%
LAST = 4  # Otava, E-Divisive: a change point in the last LAST runs
OTAVA = ROOT / ".venv-otava" / "bin" / "python"
OTAVA_PVALUE = 0.05  # Otava's own threshold; stricter ones keep the nights below them
SETS = {
    # name: (generator, seeds); the constants were chosen on "tuning".
    "tuning (generator 1, seeds 1-6)": ("a", range(1, 7)),
    "unseen (generator 1, seeds 31-42)": ("a", range(31, 43)),
    "generator 2 (seeds 1-12)": ("b", range(1, 13)),
}
QUICK = {"quick (generator 2, seeds 1-2)": ("b", range(1, 3))}


def shipped_specs() -> list[ConfigSpec]:
    """The shipped catalog's benchmark configs with their points and cron weekdays."""
    catalog = load(ROOT)
    ex = expand(catalog)
    days: dict[str, set[int]] = defaultdict(set)
    for schedule in catalog.schedules:
        weekdays = schedule.cron.split()[4]
        selection = next(s for s in ex.schedules if s.name == schedule.name)
        for config in selection.configs:
            days[config.prefix] |= {(int(d) - 1) % 7 for d in weekdays.split(",")}
    suites = {s.name: s for s in catalog.suites}
    out = []
    for config in catalog.configs:
        if config.prefix not in days:
            continue
        cells = ex.cells[(config.prefix, suites[config.suite].server_modes[0])]
        out.append(
            ConfigSpec(
                name=config.prefix,
                points=tuple(sorted((c.pair.isl, c.pair.osl, c.concurrency) for c in cells)),
                weekdays=tuple(sorted(days[config.prefix])),
                mtp=config.spec != "none",
                gpus=config.parallel.tp * config.parallel.dp,
            )
        )
    return out


@dataclass
class Tally:
    clean_point_nights: int = 0
    false_reports: int = 0
    clean_runs: int = 0
    clean_red: int = 0
    clean_server_runs: int = 0
    ab_jobs: int = 0
    outliers: int = 0
    outliers_confirmed: int = 0
    suspected_at: dict[str, int] = field(default_factory=dict)  # injection -> measured run
    confirmed_at: dict[str, int] = field(default_factory=dict)
    ids: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    injections: list[Injection] = field(default_factory=list)
    drift_ok: dict[str, bool] = field(default_factory=dict)
    edivisive_at: dict[str, int] = field(default_factory=dict)
    edivisive_false: int = 0
    # Otava: per config-run (p-value or None, clean, points, the injection active and the
    # config's runs since it began)
    otava: list[tuple[float | None, bool, int, str | None, int]] = field(default_factory=list)
    # the noise the history measured at its end: a config's level, one point's own
    level_sd: list[float] = field(default_factory=list)
    point_sd: list[float] = field(default_factory=list)
    seconds: float = 0.0

    def merge(self, other: Tally) -> None:
        for name, value in other.__dict__.items():
            mine = getattr(self, name)
            if isinstance(value, int | float):
                setattr(self, name, mine + value)
            elif isinstance(value, list):
                mine.extend(value)
            else:
                mine.update(value)


def _active(injections: list[Injection], k: int, before: int = 0) -> list[Injection]:
    return [i for i in injections if i.start - before <= k < i.start + i.length]


def _series(name: str, runs: list[tuple[str, ConfigRun]], spec: ConfigSpec) -> ServerSeries:
    key = ServerKey(config=name, fingerprint=runs[-1][1].fingerprint, runner_label="mi355",
                    image_family="rocm/atom-dev")  # fmt: skip
    points = [PointKey(isl=p[0], osl=p[1], concurrency=p[2]) for p in spec.points]
    samples: dict[PointKey, tuple[Sample | None, ...]] = {}
    for p, raw in zip(points, spec.points, strict=True):
        values = []
        for _, cr in runs:
            v = cr.values.get(raw)
            values.append(None if v is None else Sample(values={THROUGHPUT: v[THROUGHPUT]}))
        samples[p] = tuple(values)
    infos = tuple(
        RunInfo(name=run, fingerprint=cr.fingerprint, provenance=(), identity=run)
        for run, cr in runs
    )
    return ServerSeries(key=key, runs=infos, samples=samples)


def _edivisive(levels: list[float]) -> bool:
    """E-Divisive's last change point lies in the last LAST runs, the runs after it worse."""
    if len(levels) < 8:
        return False
    # Its permutation test shuffles with numpy's global generator: seeded, the same series
    # gets the same answer in every run of the bench.
    np.random.seed(len(levels))
    found = energy_statistics.e_divisive(np.array(levels), pvalue=0.05, permutations=100)
    if not found:
        return False
    last = max(found)
    return last >= len(levels) - LAST and float(np.mean(levels[last:])) > float(
        np.mean(levels[:last])
    )


def judge_history(
    h: History, policy: Policy, *, with_ab: bool, seed: int, baselines: bool
) -> Tally:
    """Every run of every config of `h`, judged as its night would."""
    rng = random.Random(seed)
    started = time.monotonic()
    t = Tally(injections=list(h.injections))
    by_config: dict[str, list[Injection]] = defaultdict(list)
    for inj in h.injections:
        by_config[inj.config].append(inj)
    past: dict[str, list[tuple[str, ConfigRun]]] = defaultdict(list)
    measured: dict[str, int] = defaultdict(int)  # a config's measured runs so far
    first_measured: dict[str, int] = {}  # injection -> the config's measured run it began on
    outliers: dict[tuple[str, str], set[PointKey]] = {}  # (config, run) -> outlier points
    caught: set[tuple[str, str]] = set()
    depth = policy.history + 1
    outcomes: dict[str, dict[str, str]] = {}
    where: dict[tuple[str, str], int] = {}  # (config, run) -> the config's run index
    levels: dict[str, list[float]] = defaultdict(list)  # each config's level, run by run
    nights: dict[str, list[tuple[bool, int, str | None, int]]] = defaultdict(list)
    for run in h.runs:
        if run.kind != "benchmark" or not run.configs:
            continue
        for name, cr in run.configs.items():
            where[(name, run.name)] = cr.index
            past[name].append((run.name, cr))
            past[name] = past[name][-depth:]
        all_series = [_series(n, past[n], h.specs[n]) for n in past]
        noise = history_noise(all_series, policy)
        index = {s.key.config: s for s in all_series}
        clean_run, red = True, False
        for name, cr in run.configs.items():
            series = index[name]
            injections = by_config.get(name, [])
            k = measured[name]
            measured[name] += 1
            for inj in injections:
                if cr.index >= inj.start:
                    first_measured.setdefault(inj.id, k)
            active = _active(injections, cr.index, before=3)
            j = judge_server(series, policy, noise, outcomes)
            if with_ab:
                night: dict[str, str] = {}
                for e in j.events:
                    if e.state == "suspected" and len(night) < policy.confirm.max_jobs:
                        night[e.id] = _ab(rng, policy.confirm, cr, injections, e.points)
                        t.ab_jobs += not active
                if night:
                    outcomes[run.name] = {**outcomes.get(run.name, {}), **night}
                    j = judge_server(series, policy, noise, outcomes)
            if not active:
                t.clean_server_runs += 1
                t.clean_point_nights += sum(v is not None for v in cr.values.values())
            else:
                clean_run = False
            if cr.outliers and not _active(injections, cr.index, before=1):
                outliers[(name, run.name)] = {
                    PointKey(isl=p[0], osl=p[1], concurrency=p[2]) for p in cr.outliers
                }
                t.outliers += len(cr.outliers)
            for e in j.events:
                mine = _attributed(e, injections, cr.index)
                if mine is None:
                    if e.state == "confirmed" and not active:
                        t.false_reports += 1
                        red = red or e.new_confirmation
                    at = outliers.get((name, e.first_bad_run), set())
                    if e.state == "confirmed" and at & set(e.points):
                        caught.add((name, e.first_bad_run))
                    continue
                onset = where.get((name, e.first_bad_run), -1)
                # A config-wide step's ids: the events of the whole server (half its points
                # or more) that began within it; an event of one point inside it is that
                # point's (an outlier at it, say), not the step told twice.
                wide = 2 * len(e.points) >= len(h.specs[name].points)
                if mine.start <= onset < mine.start + mine.length and (
                    wide or mine.kind != "config"
                ):
                    t.ids[mine.id].add(e.id)
                delay = k - first_measured.get(mine.id, k)
                t.suspected_at.setdefault(mine.id, delay)
                if e.state == "confirmed":
                    t.confirmed_at.setdefault(mine.id, delay)
                    if mine.kind == "drift":
                        size = math.exp(mine.effect(cr.index, h.specs[name].points[0])) - 1
                        t.drift_ok.setdefault(mine.id, size > -0.05)
            if not baselines:
                continue
            hit = next((i for i in injections if i.active(cr.index)), None)
            delay = k - first_measured.get(hit.id, k) if hit else 0
            points = sum(v is not None for v in cr.values.values())
            levels[name].append(_levels(series)[-1])
            nights[name].append((not active, points, hit.id if hit else None, delay))
            if _edivisive(_levels(series)):
                if hit is None:
                    t.edivisive_false += not active
                else:
                    t.edivisive_at.setdefault(hit.id, delay)
        t.clean_runs += clean_run
        t.clean_red += clean_run and red
    t.outliers_confirmed = sum(len(outliers[key]) for key in caught)
    for inj in h.injections:
        if inj.kind == "drift":
            t.drift_ok.setdefault(inj.id, False)
    points = int(np.median([len(spec.points) for spec in h.specs.values()]))
    t.level_sd.append(noise[THROUGHPUT].level(points))
    t.point_sd.append(noise[THROUGHPUT].point)
    if baselines:
        found = _otava(levels, depth)
        for name, flags in found.items():
            for p, (clean, points, which, delay) in zip(flags, nights[name], strict=True):
                t.otava.append((p, clean, points, which, delay))
    t.seconds = time.monotonic() - started
    return t


def _otava(levels: dict[str, list[float]], window: int) -> dict[str, list[float | None]]:
    """Otava's p-value per config-run (bench/otava_nightly.py in its own environment)."""
    request = {"window": window, "last": LAST, "max_pvalue": OTAVA_PVALUE, "series": levels}
    done = subprocess.run(
        [str(OTAVA), str(ROOT / "bench" / "otava_nightly.py")],
        input=json.dumps(request), capture_output=True, text=True, check=True,
    )  # fmt: skip
    found: dict[str, list[float | None]] = json.loads(done.stdout)
    return found


def _levels(series: ServerSeries) -> list[float]:
    out = []
    for i in range(len(series.runs)):
        vals = [x.values[THROUGHPUT] for x in (s[i] for s in series.samples.values()) if x]
        if vals:
            out.append(-float(np.median(np.log(vals))))
    return out


def _attributed(e: Event, injections: Sequence[Injection], now: int) -> Injection | None:
    """The injected change an event reports: active now or in the 3 runs before or after,
    of the event's scope (a one-point step: an event at its point)."""
    for inj in sorted(injections, key=lambda i: -i.start):
        if not (inj.start - 3 <= now < inj.start + inj.length + 3):
            continue
        if inj.kind == "point" and not any(
            (p.isl, p.osl, p.concurrency) == inj.point for p in e.points
        ):
            continue
        return inj
    return None


def _ab(
    rng: random.Random,
    conf: Confirm,
    cr: ConfigRun,
    injections: Sequence[Injection],
    points: Sequence[PointKey],
) -> str:
    """The A/B of an event's points (at most `confirm.max_points`) against the image before
    the event: B's true change at each point (throughput), measured as bench_confirm.py
    measures a job (restart mode, K repeats, its middle noise row), judged by the real
    verdict (generator/core/ab_verdict.py) with the shipped catalog's `regression.confirm` (its
    repeats, points and level) and the default noise model."""
    changes = {}
    for p in list(points)[: conf.max_points]:
        raw = (p.isl, p.osl, p.concurrency)
        effect = sum(i.effect(cr.index, raw) for i in injections if i.kind != "fingerprint")
        changes[f"{p.isl}x{p.osl}c{p.concurrency}"] = math.expm1(effect)
    if not changes:
        return ab_verdict.INCONCLUSIVE
    measured = bench_confirm.measure(rng, ab_order.RESTART, conf.repeats, changes, AB_NOISE)
    rule = {"t": ab_verdict.Rule(higher_is_better=True, min_change=0.05)}
    verdict, _ = ab_verdict.judge_step(
        measured, rule, conf.level, ab_order.RESTART, ab_noise.DEFAULT_NOISE
    )
    return verdict


def run_set(args: tuple[str, int, bool, bool, Policy]) -> Tally:
    gen, seed, with_ab, baselines, policy = args
    specs = shipped_specs()
    if gen == "a":
        h = generate(specs, cv=CV, days=DAYS, seed=seed, inject=True)
    else:
        h = generate_b(specs, cv=CV, days=DAYS, seed=seed)
    return judge_history(h, policy, with_ab=with_ab, seed=seed, baselines=baselines)


def rate_of(
    found: dict[str, int], injections: list[Injection], kind: str, size: float, within: int
) -> tuple[int, int]:
    chosen = [i for i in injections if i.kind == kind and abs(i.size - size) < 1e-9]
    hit = sum(1 for i in chosen if i.id in found and found[i.id] < within)
    return hit, len(chosen)


def _pct(hit: int, n: int) -> str:
    return f"{hit}/{n} ({100 * hit / n:.0f}%)" if n else "-"


def rows(t: Tally) -> list[tuple[str, str]]:
    """(figure, value) for the targets' rows."""
    inj = t.injections

    def within(found: dict[str, int], kind: str, size: float, runs: int) -> str:
        return _pct(*rate_of(found, inj, kind, size, runs))

    steps = [i for i in inj if i.kind == "config"]
    ones = sum(1 for i in steps if len(t.ids.get(i.id, ())) == 1)
    most = max((len(t.ids.get(i.id, ())) for i in steps), default=0)
    drifts = [i for i in inj if i.kind == "drift"]
    per_1000 = 1000 / max(t.clean_point_nights, 1)
    return [
        ("false alarms per 1000 clean point-nights", f"{t.false_reports * per_1000:.2f}"),
        ("clean runs red", _pct(t.clean_red, t.clean_runs)),
        ("-5% step suspected on its first run", within(t.suspected_at, "config", -0.05, 1)),
        ("-5% step confirmed within 2 runs", within(t.confirmed_at, "config", -0.05, 2)),
        ("-5% step confirmed within 4 runs", within(t.confirmed_at, "config", -0.05, 4)),
        ("-10% one-point step confirmed within 2", within(t.confirmed_at, "point", -0.10, 2)),
        ("-2% step confirmed within 7 runs", within(t.confirmed_at, "config", -0.02, 7)),
        ("one-run -15% outliers confirmed", _pct(t.outliers_confirmed, t.outliers)),
        ("one event id per config-wide step", f"{_pct(ones, len(steps))}, most {most}"),
        (
            "drift -0.2%/run confirmed before -5%",
            _pct(sum(t.drift_ok.get(i.id, False) for i in drifts), len(drifts)),
        ),
        ("A/B jobs per clean server-run", f"{t.ab_jobs / max(t.clean_server_runs, 1):.3f}"),
        ("judged in (s)", f"{t.seconds:.0f}"),
    ]


def matched(t: Tally, allowed: int) -> tuple[float, dict[str, int], int]:
    """Otava's threshold with at most `allowed` false confirmations (clean config-runs
    flagged), the injections it confirmed (runs after their start) and its false count."""
    clean = sorted(p for p, ok, _, _, _ in t.otava if ok and p is not None)
    threshold = clean[allowed] if allowed < len(clean) else OTAVA_PVALUE * 1.01
    found: dict[str, int] = {}
    false = 0
    for p, ok, _, hit, delay in t.otava:
        if p is None or p >= threshold:
            continue
        if hit is not None:
            found.setdefault(hit, delay)
        false += ok
    return threshold, found, false


def oracle_rows(t: Tally, policy: Policy, *, with_ab: bool) -> list[tuple[str, str]]:
    """The oracle (verdict_ceiling.py) at the rule's measured false rate, the rule's
    figures as a share of its."""
    rate = t.false_reports / max(t.clean_server_runs, 1)
    # The oracle's A/B (verdict_ceiling.py): the standard deviation of the A/B's estimate
    # of a config-wide change (restart, the policy's K and points) and its one-sided z.
    conf = policy.confirm
    sd = ab_noise.DEFAULT_NOISE.se(ab_order.RESTART, conf.max_points, conf.repeats)
    model = (
        AB(suspect=policy.significance.suspect, sd=sd, z=ab_noise.z_of(conf.level))
        if with_ab
        else None
    )
    level_sd, point_sd = float(np.mean(t.level_sd)), float(np.mean(t.point_sd))
    c = ceiling(max(rate, 1e-5), level_sd, point_sd, model)
    inj = t.injections

    def share(kind: str, size: float, runs: int, bound: float) -> str:
        hit, n = rate_of(t.confirmed_at, inj, kind, size, runs)
        mine = hit / n if n else 0.0
        return f"{100 * bound:.0f}% (the rule {mine / bound:.2f} x)" if bound else "-"

    return [
        (
            (
                f"oracle at {1000 * rate:.2f} false per 1000 server-runs (level sd "
                f"{100 * level_sd:.2f}%, point sd {100 * point_sd:.2f}%, known)"
            ),
            f"threshold {c.c:.2f}",
        ),
        ("oracle: -5% step within 2 runs", share("config", -0.05, 2, c.five_2)),
        ("oracle: -5% step within 4 runs", share("config", -0.05, 4, c.five_4)),
        ("oracle: -10% one-point step within 2", share("point", -0.10, 2, c.point_2)),
        ("oracle: -2% step within 7 runs", share("config", -0.02, 7, c.two_7)),
    ]


def baseline_rows(t: Tally) -> list[tuple[str, str]]:
    """Otava at the rule's false-confirmation count, E-Divisive at its own 5%."""
    if not t.otava:
        return []
    inj = t.injections
    per_1000 = 1000 / max(t.clean_point_nights, 1)
    threshold, found, false = matched(t, t.false_reports)

    def within(at: dict[str, int], kind: str, size: float, runs: int) -> str:
        return _pct(*rate_of(at, inj, kind, size, runs))

    return [
        (f"Otava (p < {threshold:.2g}): false alarms per 1000", f"{false * per_1000:.2f}"),
        ("Otava: -5% step confirmed within 2 runs", within(found, "config", -0.05, 2)),
        ("Otava: -5% step confirmed within 4 runs", within(found, "config", -0.05, 4)),
        ("Otava: -10% one-point step within 2", within(found, "point", -0.10, 2)),
        ("Otava: -2% step confirmed within 7 runs", within(found, "config", -0.02, 7)),
        ("E-Divisive: false alarms per 1000", f"{t.edivisive_false * per_1000:.2f}"),
        ("E-Divisive: -5% step within 2 runs", within(t.edivisive_at, "config", -0.05, 2)),
        ("E-Divisive: -5% step within 4 runs", within(t.edivisive_at, "config", -0.05, 4)),
        ("E-Divisive: -10% one-point step within 2", within(t.edivisive_at, "point", -0.10, 2)),
        ("E-Divisive: -2% step within 7 runs", within(t.edivisive_at, "config", -0.02, 7)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two histories of generator 2")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--set", choices=("tuning", "unseen", "generator2"), help="one of the three sets only"
    )
    args = parser.parse_args()
    policy = load(ROOT).regression
    sets = QUICK if args.quick else SETS
    if args.set:
        [name] = [n for n in SETS if n.replace(" ", "").startswith(args.set)]
        sets = {name: SETS[name]}
    print("## Verdicts on synthetic histories (CV 3%)\n")
    for with_ab in (False, True):
        for name, (gen, seeds) in sets.items():
            baselines = not with_ab and not name.startswith("tuning")
            jobs = [(gen, seed, with_ab, baselines, policy) for seed in seeds]
            with multiprocessing.Pool(args.workers) as pool:
                tallies = pool.map(run_set, jobs)
            total = Tally()
            for t in tallies:
                total.merge(t)
            label = f"{name}, {'with the A/B' if with_ab else 'history only'}"
            print(f"### {label}\n")
            found = rows(total) + oracle_rows(total, policy, with_ab=with_ab)
            found += baseline_rows(total)
            print("\n".join(f"- {what}: {value}" for what, value in found) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
