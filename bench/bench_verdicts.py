"""The verdicts' quality on synthetic histories of the shipped schedule: `make bench` (not
part of `make test`).

Each history (verdict_history.py: the shipped cron groups on their days, nightly accuracy
runs between them, the noise and the injected changes listed there) is judged night by
night with the functions `results compare` judges with (history.py -> judge.py ->
events.py -> carry.py), each run of each config against its server's series so far, the
events of that server's previous night carried as `compare` reads them from its manifest,
under the shipped catalog's `regression` section (or `--policy FILE`'s). With
`regression.confirm.enabled` (as shipped) each night's new suspected events get the A/B
jobs `sglang-ci confirm matrix` would give them (ab_night), measured as
bench_confirm.py's model measures a job, and their results are applied as `compare
--confirmation` applies them; `--no-ab` judges with the run-to-run statistics alone.
It prints, per throughput CV, false alarms, clean runs that turn red, detection and delay
per injected change and events per injected change; then the targets table (CV 3%) with
whether each target is met, `results compare` timed on bench_results.py's five-year
history, and this rule beside an oracle (verdict_ceiling.py) at the false-alarm rate the
targets allow and at its own.

- A *clean* point-night: a point measured validly on a run of a config with no injected
  change active. A false alarm: a confirmed event not attributed to an injected change
  (attributed: the config's, its first bad run within the change's runs, or up to three
  runs before when the event is still open while the change is: a suspicion open when a
  step came is carried on by it), counted once per run it is reported. A clean run: a
  cron group's run with no injected change active in any of its configs; red: an event
  confirmed by that run.
- Delays count the config's measured runs from the change's first (a lost run is not a run
  of the config): "within 2" is confirmed by the change's second measured run.
- A one-run outlier is confirmed when a point finding of its own point, starting on the
  outlier's run, is confirmed on a later run (outliers just before or during an injected
  change of their config are left out: the change carries them).
- Events per injected config-wide step: the distinct events with a pooled finding of its
  config reported while it lasts, per step that was confirmed.

    python bench/bench_verdicts.py [--quick] [--detector edivisive|otava] [--no-compare]
                                   [--policy FILE] [--no-ab] [--workers N] [--seeds A-B]

`--seeds 19-30` judges CV 3% histories with changes of those seeds instead of the bench's
own: a check of the figures on histories nothing was chosen on.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_confirm  # noqa: E402
import bench_results  # noqa: E402
import verdict_ceiling  # noqa: E402
from verdict_history import (  # noqa: E402
    STEPS,
    ConfigRun,
    ConfigSpec,
    History,
    Injection,
    generate,
    part_sd,
)

from generator.catalog import load  # noqa: E402
from generator.catalog.regression import Policy, policy_file  # noqa: E402
from generator.confirm import matrix  # noqa: E402
from generator.confirm.events import is_new_suspected  # noqa: E402
from generator.errors import CatalogError  # noqa: E402
from generator.expand import expand  # noqa: E402
from generator.launch import ab  # noqa: E402
from generator.results import track  # noqa: E402
from generator.results.carry import (  # noqa: E402
    AB,
    Earlier,
    Memory,
    as_earlier,
    carried,
    with_outcome,
)
from generator.results.changepoint import Detector, edivisive  # noqa: E402
from generator.results.events import CONFIRMED, Event, events, merged  # noqa: E402
from generator.results.history import (  # noqa: E402
    PointKey,
    RunInfo,
    Sample,
    ServerKey,
    ServerSeries,
)
from generator.results.judge import (  # noqa: E402
    POINT,
    SERVER,
    Rules,
    ServerJudgement,
    judge_server,
    rules,
)
from tests.results_gen import point_record, write_run  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

RUNNER = "atom-mi355-8gpu-aac-runner"
FAMILY = "rocm/atom-dev"
# (cv, seed, injected changes?) of each history: at CV 3% (the targets) twelve with
# changes (about 55 steps of each size: a detection rate is known to +-7-10%) and two
# without, then one of each at 1% and 6%. The rules were tuned on the first six; seeds
# 13-18 judge them on histories no setting was chosen on.
HISTORIES = (
    (0.03, 1, True),
    (0.03, 2, True),
    (0.03, 3, True),
    (0.03, 4, True),
    (0.03, 8, True),
    (0.03, 11, True),
    *((0.03, seed, True) for seed in range(13, 19)),
    (0.03, 5, False),
    (0.03, 6, False),
    (0.01, 7, True),
    (0.01, 9, False),
    (0.06, 10, True),
    (0.06, 12, False),
)
QUICK = ((0.03, 1, True), (0.03, 5, False))
DAYS = 364
EARLY = 3
THROUGHPUT = "output_throughput_per_gpu"
DRIFT_LIMIT = 0.05
RED_TARGET = 0.02  # clean runs that turn red, at most
RUNNER_GPUS = 8  # the MI355 runners the A/B jobs run on
# The injected changes an image carries, which an A/B of two images sees.
IMAGE_KINDS = frozenset({"config", "point", "drift", "staircase"})


def otava(values: Sequence[float], p_value: float, _permutations: int) -> list[int]:
    """Apache Otava's change points (its public `compute_change_points`: E-Divisive's split
    with a Student t-test for significance), for the comparison of the two libraries; only
    where `apache-otava` is installed (it is not a dependency, see docs/results.md)."""
    # Imported here: apache-otava is optional, and only this comparison needs it.
    from otava.analysis import compute_change_points  # noqa: PLC0415 (optional dependency)

    found, _ = compute_change_points(
        list(values), window_len=max(len(values), 2), max_pvalue=p_value, min_magnitude=0.0
    )
    return sorted(int(c.index) for c in found)


DETECTORS: dict[str, Detector] = {"edivisive": edivisive, "otava": otava}


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
class Server:
    """What the bench keeps of one config: its runs so far."""

    runs: list[tuple[RunInfo, ConfigRun, dict[PointKey, Sample | None]]] = field(
        default_factory=list
    )


def samples(cr: ConfigRun) -> dict[PointKey, Sample | None]:
    out: dict[PointKey, Sample | None] = {}
    for (isl, osl, c), values in cr.values.items():
        out[PointKey(isl=isl, osl=osl, concurrency=c)] = (
            None
            if values is None
            else Sample(values=values, interactivity=cr.interactivity.get((isl, osl, c)))
        )
    return out


def series_of(
    spec: ConfigSpec, past: Server, info: RunInfo, cr: ConfigRun, depth: int
) -> ServerSeries:
    """The server's series as series.py reads it from a history: its fingerprint's runs,
    preceded by the previous fingerprint's when there are few."""
    runs = [*past.runs, (info, cr, samples(cr))]
    mine = [i for i, (_, r, _) in enumerate(runs) if r.fingerprint == cr.fingerprint][-depth:]
    before = list(range(mine[0]))[-(depth - len(mine)) :] if len(mine) < depth else []
    chosen = [runs[i] for i in (*before, *mine)]
    points = sorted({p for _, _, s in chosen for p in s})
    key = ServerKey(
        config=spec.name, fingerprint=cr.fingerprint, runner_label=RUNNER, image_family=FAMILY
    )
    return ServerSeries(
        key=key,
        runs=tuple(i for i, _, _ in chosen),
        samples={p: tuple(s.get(p) for _, _, s in chosen) for p in points},
        acceptance=frozenset(points) if spec.mtp else frozenset(),
    )


@dataclass
class Tally:
    """What the histories of one CV gave."""

    clean_point_nights: int = 0
    false_confirmed: int = 0  # once per run reported
    clean_runs: int = 0
    clean_runs_red: int = 0
    clean_runs_suspected: int = 0
    clean_server_runs: int = 0  # config-runs with no injected change active
    false_new: int = 0  # false alarms on the run that confirmed them
    false_ab: int = 0  # of those, confirmed by the night's A/B
    ab_jobs: int = 0
    outliers: int = 0
    outliers_confirmed: int = 0
    injections: list[Injection] = field(default_factory=list)
    flagged: dict[str, int] = field(default_factory=dict)  # injection -> first run reported
    confirmed: dict[str, int] = field(default_factory=dict)  # injection -> first confirmed
    exact: dict[str, bool] = field(default_factory=dict)  # its first bad run is the change's
    how: dict[str, str] = field(default_factory=dict)  # what confirmed it first
    event_ids: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    measured: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    seconds: float = 0.0
    judged: int = 0
    detector_calls: int = 0
    detector_seconds: float = 0.0


def attributed(
    event: Event, injections: Sequence[Injection], k_of: dict[str, int], now: int
) -> Injection | None:
    onset = k_of.get(event.first_bad_run)
    if onset is None:
        return None
    for inj in injections:
        early = 0 if inj.kind == "drift" else EARLY
        if not inj.start - early <= onset < inj.start + inj.length + 1:
            continue
        if onset < inj.start and now < inj.start:
            continue
        if inj.kind == "point":
            assert inj.point is not None
            isl, osl, c = inj.point
            if PointKey(isl=isl, osl=osl, concurrency=c) not in event.points:
                continue
        return inj
    return None


def judge_history(h: History, r: Rules, tally: Tally) -> None:
    servers: dict[str, Server] = defaultdict(Server)
    k_of: dict[str, dict[str, int]] = defaultdict(dict)
    by_config: dict[str, list[Injection]] = defaultdict(list)
    for change in h.injections:
        by_config[change.config].append(change)
    tally.injections.extend(h.injections)
    depth = r.policy.history
    # The final events of each server's last run, as compare reads them from its manifest.
    earlier: dict[tuple[str, str], Memory] = {}
    # (config, run index in the server's series, point) of each outlier: confirmed yet?
    outliers: dict[str, dict[tuple[int, PointKey], bool]] = defaultdict(dict)
    ab_rng = random.Random(h.seed * 7919)  # the A/B jobs' noise, apart from the history's
    for run in h.runs:
        if run.kind != "benchmark":
            continue
        active_run = red = suspected = False
        judged: dict[str, tuple[ConfigRun, RunInfo, ServerSeries, ServerJudgement, list[Event]]]
        judged = {}
        memory_of: dict[str, tuple[Earlier, ...]] = {}
        for name, cr in run.configs.items():
            provenance = (
                ("image_digest", run.image_digest),
                ("sglang_version", run.sglang_version),
            )
            info = RunInfo(name=run.name, fingerprint=cr.fingerprint, provenance=provenance)
            k_of[name][run.name] = cr.index
            tally.measured[f"{h.seed}:{name}"].append(cr.index)
            series = series_of(h.specs[name], servers[name], info, cr, depth)
            start = time.perf_counter()
            memory = earlier.get((name, cr.fingerprint), Memory(events=None))
            memory = memory.kept({x.name for x in series.runs[-r.policy.window :]})
            memory_of[name] = memory.changes
            j = judge_server(series, r, memory.known)
            found = events(j, memory.known)
            found = merged([carried(e, memory.events, e.stretch, memory.changes) for e in found])
            tally.seconds += time.perf_counter() - start
            tally.judged += 1
            judged[name] = (cr, info, series, j, found)
        outcomes = ab_night(ab_rng, h, r.policy, judged, k_of, by_config, tally)
        for name, (cr, info, series, _, judged_found) in judged.items():
            found = [with_outcome(e, outcomes.get(e.id)) for e in judged_found]
            earlier[(name, cr.fingerprint)] = Memory(
                events=[as_earlier(e) for e in found], changes=memory_of[name]
            )
            injections = by_config[name]
            for p in cr.outliers:
                if any(i.start - EARLY <= cr.index < i.start + i.length for i in injections):
                    continue  # an outlier just before or during a change is the change's
                tally.outliers += 1
                key = (len(servers[name].runs), PointKey(isl=p[0], osl=p[1], concurrency=p[2]))
                outliers[name][key] = False
            if any(i.active(cr.index) for i in injections):
                active_run = True
            else:
                tally.clean_point_nights += sum(v is not None for v in cr.values.values())
                tally.clean_server_runs += 1
            for e in found:
                if e.state == CONFIRMED:
                    _confirm_outliers(tally, e, series, servers[name], outliers[name])
                inj = attributed(e, injections, k_of[name], cr.index)
                if inj is None:
                    if e.state == CONFIRMED:
                        tally.false_confirmed += 1
                        tally.false_new += e.new_confirmation
                        tally.false_ab += e.new_confirmation and e.confirmed_by == AB
                        red = red or e.new_confirmation
                    else:
                        suspected = True
                    continue
                tally.flagged.setdefault(inj.id, cr.index)
                if any(f.scope == SERVER for f in e.found):
                    tally.event_ids[inj.id].add(e.id)
                if e.state == CONFIRMED and inj.id not in tally.confirmed:
                    tally.confirmed[inj.id] = cr.index
                    tally.exact[inj.id] = k_of[name].get(e.first_bad_run) == inj.start
                    tally.how[inj.id] = "+".join(
                        ("A/B",) if e.confirmed_by == AB and e.new_confirmation else e.how
                    )
            servers[name].runs.append((info, cr, samples(cr)))
        if not active_run:
            tally.clean_runs += 1
            tally.clean_runs_red += red
            tally.clean_runs_suspected += suspected


def _image_effect(injections: Sequence[Injection], k: int, point: PointKey) -> float:
    """The log speed factor at the config's run `k` and `point` that the run's image
    carries (what an A/B of two images sees): injected steps, staircases and drift; not a
    new fingerprint (both sides run the current config), not an outlier or the bimodal
    config's slow machine (neither comes back in the A/B)."""
    at = (point.isl, point.osl, point.concurrency)
    return sum(i.effect(k, at) for i in injections if i.kind in IMAGE_KINDS)


def ab_night(
    rng: random.Random,
    h: History,
    policy: Policy,
    judged: dict[str, tuple[ConfigRun, RunInfo, ServerSeries, ServerJudgement, list[Event]]],
    k_of: dict[str, dict[str, int]],
    by_config: dict[str, list[Injection]],
    tally: Tally,
) -> dict[str, str]:
    """The night's A/B jobs, as `sglang-ci confirm matrix` picks them (the run's new
    suspected events, worst change first, at most `max_jobs`; each one's points with the
    largest changes, at most `max_points`) and as bench_confirm.py measures one: A the
    last good run's image, B the current one, `repeats` each, on an 8-GPU runner (both
    servers at once when two fit), with the noise of a point's own part (its cv, a launch
    and a GPU half offset of half that). Event id -> the A/B's result."""
    c = policy.confirm
    if not c.enabled:
        return {}
    new = [
        (name, e)
        for name, (_, _, _, _, found) in judged.items()
        for e in found
        if is_new_suspected(e.state, e.first_bad_run, e.current_run, e.runs)
        and e.last_good_run in k_of[name]
    ]
    new.sort(key=lambda t: (-matrix.size(x.change for x in t[1].changes.values()), t[1].id))
    noise = part_sd(h.cv)
    out: dict[str, str] = {}
    for name, e in new[: c.max_jobs]:
        cr, _, _, j, _ = judged[name]
        good = k_of[name][e.last_good_run or ""]

        metrics = e.metrics or (THROUGHPUT,)

        def size(p: PointKey, j: ServerJudgement = j, metrics: Sequence[str] = metrics) -> float:
            return matrix.size(m.change for m in j.points.get(p, ()) if m.metric in metrics)

        points = sorted(e.points, key=lambda p: (-size(p), p))[: c.max_points]
        injections = by_config[name]
        changes = {
            f"p{i}": math.expm1(
                _image_effect(injections, cr.index, p) - _image_effect(injections, good, p)
            )
            for i, p in enumerate(points)
        }
        how = ab.mode(h.specs[name].gpus, RUNNER_GPUS)
        measured = bench_confirm.measure(
            rng, how, c.repeats, changes, (noise, noise / 2, noise / 2), THROUGHPUT
        )
        rule = {THROUGHPUT: ab.Rule(higher_is_better=True, min_change=policy.change(THROUGHPUT))}
        verdict, _ = ab.judge_step(measured, rule, c.level)
        tally.ab_jobs += 1
        out[e.id] = verdict
    return out


def _confirm_outliers(
    tally: Tally,
    e: Event,
    series: ServerSeries,
    server: Server,
    outliers: dict[tuple[int, PointKey], bool],
) -> None:
    """Outliers a confirmed event confirms at their own point, counted once each: a point
    finding of the outlier's point whose first run is the outlier's run."""
    offset = len(server.runs) + 1 - len(series.runs)  # the series' first run, in the server's
    for f in e.found:
        if f.scope != POINT or f.point is None or f.finding.confirmed_at is None:
            continue
        key = (offset + f.onset, f.point)
        if outliers.get(key) is False:
            outliers[key] = True
            tally.outliers_confirmed += 1


def _one(args: tuple[list[ConfigSpec], Policy, str, tuple[float, int, bool], int]) -> Tally:
    specs, policy, detector, (cv, seed, inject), days = args
    tally = Tally()
    library = DETECTORS[detector]

    def timed(values: Sequence[float], p_value: float, permutations: int) -> list[int]:
        start = time.perf_counter()
        found = library(values, p_value, permutations)
        tally.detector_seconds += time.perf_counter() - start
        tally.detector_calls += 1
        return found

    h = generate(specs, cv=cv, days=days, seed=seed, inject=inject)
    judge_history(h, rules(policy, timed), tally)
    return tally


def merge(into: Tally, more: Tally) -> None:
    for name in (
        "clean_point_nights", "false_confirmed", "clean_runs", "clean_runs_red",
        "clean_runs_suspected", "clean_server_runs", "false_new", "false_ab", "ab_jobs", "outliers",
        "outliers_confirmed", "judged", "detector_calls",
    ):  # fmt: skip
        setattr(into, name, getattr(into, name) + getattr(more, name))
    into.seconds += more.seconds
    into.detector_seconds += more.detector_seconds
    for name in ("flagged", "confirmed", "exact", "how", "event_ids", "measured"):
        getattr(into, name).update(getattr(more, name))
    into.injections.extend(more.injections)


def run_all(
    specs: list[ConfigSpec],
    policy: Policy,
    detector: str,
    histories: Sequence[tuple[float, int, bool]],
    workers: int,
) -> dict[float, Tally]:
    """Every history judged (in `workers` processes), the tallies merged per CV."""
    jobs = [(specs, policy, detector, h, DAYS) for h in histories]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            done = pool.map(_one, jobs, chunksize=1)
    else:
        done = [_one(job) for job in jobs]
    out: dict[float, Tally] = defaultdict(Tally)
    for (cv, _, _), tally in zip(histories, done, strict=True):
        merge(out[cv], tally)
    return out


def full_baselines(specs: list[ConfigSpec], policy: Policy) -> tuple[int, int]:
    """Points that have a full baseline (`runs` values) on their config's run after
    `runs` runs, on a clean history of the shipped schedule (no lost run, no failed point):
    (points with one, points judged)."""
    r = rules(policy)
    h = generate(specs, cv=0.03, days=7 * (policy.runs + 2), seed=3, inject=False, noisy=False)
    servers: dict[str, Server] = defaultdict(Server)
    full = total = 0
    for run in h.runs:
        for name, cr in run.configs.items():
            info = RunInfo(name=run.name, fingerprint=cr.fingerprint)
            if cr.index == policy.runs:
                judged = judge_server(series_of(h.specs[name], servers[name], info, cr, 60), r)
                for results in judged.points.values():
                    total += 1
                    full += any(m.metric == THROUGHPUT and m.runs >= policy.runs for m in results)
            servers[name].runs.append((info, cr, samples(cr)))
    return full, total


def time_compare() -> tuple[float, float] | None:
    """`results compare` on bench_results.py's five-year history: median wall time and
    median CPU time (user + system) of 3 fresh processes."""
    where = bench_results.cached_history()
    work = where / "verdicts-work"
    if not (work / "run").exists():
        run = bench_results.day_run(bench_results.RUNS)
        records = [point_record(run, p) for p in bench_results.points()]
        write_run(work, run, bench_results.shaped(records, bench_results.RUNS), name="run")
    cmd = [
        *(sys.executable, "-m", "generator", "--root", str(work), "results", "compare"),
        *("--history", str(where / "history"), "--current", str(work / "run"), "--json"),
    ]
    walls, cpus = [], []
    for _ in range(3):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        walls.append(time.perf_counter() - start)
        cpus.append(usage.ru_utime + usage.ru_stime)
        if os.waitstatus_to_exitcode(status) not in (0, 1):
            return None
    return statistics.median(walls), statistics.median(cpus)


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}%" if d else "-"


def wilson(n: int, d: int, z: float = 1.96) -> str:
    """The 95% Wilson interval of the proportion n / d."""
    if not d:
        return "-"
    p = n / d
    centre = (p + z * z / (2 * d)) / (1 + z * z / d)
    half = z * math.sqrt(p * (1 - p) / d + z * z / (4 * d * d)) / (1 + z * z / d)
    return f"{100 * max(0.0, centre - half):.0f}-{100 * min(1.0, centre + half):.0f}%"


def delay(t: Tally, inj: Injection, k: int) -> int:
    """Measured runs of the config from the injection's first to run `k`, both counted."""
    return sum(1 for i in t.measured[inj.id.split("#")[0]] if inj.start <= i <= k)


def detected(
    t: Tally, kind: str, size: float | None, within: int, confirmed: bool
) -> tuple[int, int]:
    pool = [
        i for i in t.injections if i.kind == kind and (size is None or math.isclose(i.size, size))
    ]
    hits = t.confirmed if confirmed else t.flagged
    return sum(1 for i in pool if i.id in hits and delay(t, i, hits[i.id]) <= within), len(pool)


def median_delay(t: Tally, kind: str, size: float | None, confirmed: bool) -> str:
    hits = t.confirmed if confirmed else t.flagged
    found = [
        delay(t, i, hits[i.id])
        for i in t.injections
        if i.kind == kind and (size is None or math.isclose(i.size, size)) and i.id in hits
    ]
    return f"{statistics.median(found):g}" if found else "-"


def events_per_step(t: Tally) -> tuple[float, int]:
    """Distinct events with a pooled finding of the step's config reported while it lasts,
    per config-wide step that was confirmed (a point's noise during the step is its own)."""
    steps = [i for i in t.injections if i.kind == "config" and i.id in t.confirmed]
    counts = [len(t.event_ids[i.id]) for i in steps]
    return (statistics.fmean(counts) if counts else 0.0), max(counts, default=0)


def drift_before(t: Tally) -> tuple[int, int]:
    """Drifts flagged before DRIFT_LIMIT cumulative (25 runs of -0.2%)."""
    pool = [i for i in t.injections if i.kind == "drift"]
    limit = round(DRIFT_LIMIT / abs(pool[0].size)) if pool else 0
    early = sum(1 for i in pool if i.id in t.flagged and delay(t, i, t.flagged[i.id]) < limit)
    return early, len(pool)


def details(cv: float, t: Tally) -> list[str]:
    fa = 1000 * t.false_confirmed / max(t.clean_point_nights, 1)
    lines = [
        (
            f"### CV {cv:.0%}: {t.judged:,} server-runs, {t.clean_point_nights:,} clean "
            f"point-nights, {t.clean_runs} clean runs"
        ),
        "",
        f"- confirmed false alarms per 1000 clean point-nights: {fa:.2f}",
        (
            f"- clean runs that turn red: {pct(t.clean_runs_red, t.clean_runs)} "
            f"({t.clean_runs_red} / {t.clean_runs}); with a suspected event: "
            f"{pct(t.clean_runs_suspected, t.clean_runs)}"
        ),
        f"- one-run -15% outliers confirmed: {t.outliers_confirmed} / {t.outliers}",
        f"- A/B jobs: {t.ab_jobs:,}; false alarms they confirmed: {t.false_ab}",
        (
            f"- events per detected config-wide step: {events_per_step(t)[0]:.2f} "
            f"(at most {events_per_step(t)[1]})"
        ),
        (
            f"- change-point calls: {t.detector_calls:,}, "
            f"{1000 * t.detector_seconds / max(t.detector_calls, 1):.1f} ms each"
        ),
        "",
        (
            "| injected change | n | suspected on its 1st run | confirmed by run 2 | by 4 | by 7 "
            "| median runs to confirm | first bad run exact |"
        ),
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for kind in ("config", "point"):
        for size in STEPS:
            s1, n = detected(t, kind, size, 1, False)
            c2, _ = detected(t, kind, size, 2, True)
            c4, _ = detected(t, kind, size, 4, True)
            c7, _ = detected(t, kind, size, 7, True)
            pool = [i for i in t.injections if i.kind == kind and math.isclose(i.size, size)]
            exact = sum(1 for i in pool if t.exact.get(i.id))
            hit = sum(1 for i in pool if i.id in t.confirmed)
            label = "config-wide" if kind == "config" else "single point"
            lines.append(
                f"| {label} {size:+.0%} | {n} | {pct(s1, n)} | {pct(c2, n)} | {pct(c4, n)} "
                f"| {pct(c7, n)} | {median_delay(t, kind, size, True)} | {pct(exact, hit)} |"
            )
    for kind, label in (
        ("drift", "drift -0.2% a run"),
        ("staircase", "staircase -3%, -3%"),
        ("fingerprint", "-10% with a new fingerprint"),
    ):
        s1, n = detected(t, kind, None, 1, False)
        c4, _ = detected(t, kind, None, 4, True)
        lines.append(
            f"| {label} | {n} | {pct(s1, n)} | - | {pct(c4, n)} | - "
            f"| {median_delay(t, kind, None, True)} | - |"
        )
    return [*lines, ""]


def targets(t: Tally, baselines: tuple[int, int], timed: tuple[float, float] | None) -> list[str]:
    fa = 1000 * t.false_confirmed / max(t.clean_point_nights, 1)
    red = t.clean_runs_red / max(t.clean_runs, 1)
    s1, n5 = detected(t, "config", -0.05, 1, False)
    c4, _ = detected(t, "config", -0.05, 4, True)
    p2, n10 = detected(t, "point", -0.10, 2, True)
    c7, n2 = detected(t, "config", -0.02, 7, True)
    drift, nd = drift_before(t)
    per, most = events_per_step(t)
    full, total = baselines
    rows = [
        (
            (
                "confirmed false alarms per 1000 clean point-nights (points and curves; an event "
                "once a run)"
            ),
            "<= 1",
            f"{fa:.2f}",
            fa <= 1,
        ),
        (
            "clean runs that turn red",
            "<= 2%",
            f"{100 * red:.1f}% ({t.clean_runs_red} / {t.clean_runs})",
            red <= RED_TARGET,
        ),
        (
            (
                "-5% config-wide step suspected on its first run / confirmed within 4 runs of its "
                "config"
            ),
            ">= 80% / >= 90%",
            f"{pct(s1, n5)} / {pct(c4, n5)} (n={n5}; 95% interval {wilson(c4, n5)})",
            s1 >= 0.8 * n5 and c4 >= 0.9 * n5,
        ),
        (
            "-10% single-point step confirmed within 2 runs",
            ">= 95%",
            f"{pct(p2, n10)} (n={n10}; 95% interval {wilson(p2, n10)})",
            p2 >= 0.95 * n10,
        ),
        (
            "-2% config-wide step confirmed within 7 runs",
            ">= 30%",
            f"{pct(c7, n2)} (n={n2}; 95% interval {wilson(c7, n2)})",
            c7 >= 0.3 * n2,
        ),
        (
            "drift of -0.2% a run flagged before -5% cumulative",
            "all",
            f"{drift} / {nd}",
            drift == nd,
        ),
        (
            "a one-run -15% outlier confirmed",
            "never",
            f"{t.outliers_confirmed} / {t.outliers}",
            t.outliers_confirmed == 0,
        ),
        ("events per injected config-wide step", "1", f"{per:.2f} (at most {most})", most <= 1),
        (
            "points with a full baseline after 7 runs of their config, shipped schedules",
            "all (Mesh included)",
            f"{full} / {total}",
            full == total,
        ),
    ]
    if timed is not None:
        wall, cpu = timed
        rows.append(
            (
                "`results compare`, five years of history (1,826 runs)",
                "<= 5 s",
                f"{wall:.2f} s wall, {cpu:.2f} s CPU",
                wall <= 5.0,
            )
        )
    lines = ["| figure (CV 3%) | target | measured | |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {'met' if ok else 'NOT met'} |" for a, b, c, ok in rows]
    return lines


def configs_per_run(specs: Sequence[ConfigSpec]) -> float:
    """The mean number of configs in a benchmark run of the shipped schedule."""
    days = {d for s in specs for d in s.weekdays}
    return sum(len(s.weekdays) for s in specs) / len(days)


def oracle(t: Tally, specs: Sequence[ConfigSpec], policy: Policy, cv: float = 0.03) -> list[str]:
    """This rule beside an oracle (verdict_ceiling.py) at the false-alarm rate the targets
    allow and at the rate this rule has, knowing the noise and estimating it from the runs
    a verdict reads."""
    points = statistics.median(len(s.points) for s in specs)
    sd = verdict_ceiling.pooled_sd(cv, int(points))
    per_run = configs_per_run(specs)
    allowed = 1 - (1 - RED_TARGET) ** (1 / per_run)
    mine = t.false_new / max(t.clean_server_runs, 1)
    five, n5 = detected(t, "config", -0.05, 4, True)
    two, n2 = detected(t, "config", -0.02, 7, True)
    lines = [
        f"### This rule beside an oracle (CV {cv:.0%}, verdict_ceiling.py)",
        "",
        (
            f"- the pooled value of a {points:g}-point config: standard deviation "
            f"{100 * sd:.2f}%; a -5% step is {-math.log(0.95) / sd:.2f} of them, -2% "
            f"{-math.log(0.98) / sd:.2f}"
        ),
        (
            f"- false confirmations per clean server-run: {100 * allowed:.2f}% allowed by "
            f"{RED_TARGET:.0%} of clean runs red ({per_run:.2f} configs a run); this rule "
            f"{100 * mine:.2f}% ({t.false_new} / {t.clean_server_runs})"
        ),
        "",
        "| | false confirmations per clean server-run | -5% within 4 runs | -2% within 7 |",
        "|---|---:|---:|---:|",
    ]
    # The degrees of freedom of a scale learnt from the runs a verdict reads (track.py).
    df = track.EFFICIENCY * (policy.history - 1)
    rows = (
        ("oracle, at the rate allowed", allowed, None),
        ("oracle, at this rule's", mine, None),
        (f"oracle, noise estimated (df {df:.0f}), at the rate allowed", allowed, df),
        (f"oracle, noise estimated (df {df:.0f}), at this rule's", mine, df),
    )
    for label, rate, known in rows:
        if rate <= 0:
            continue
        c = verdict_ceiling.ceiling(rate, sd, known)
        lines.append(
            f"| {label} (c = {c.c:.2f}) | {100 * rate:.2f}% | {100 * c.five:.0f}% "
            f"| {100 * c.two:.0f}% |"
        )
    # The A/B measures again (what no rule on the history has): its row is named apart.
    label = "this rule with the night's A/B" if policy.confirm.enabled else "this rule"
    lines.append(f"| {label} | {100 * mine:.2f}% | {pct(five, n5)} | {pct(two, n2)} |")
    return [*lines, ""]


def seed_range(text: str) -> range:
    """`A-B` (or one seed `A`): the seeds A to B, both included."""
    first, _, last = text.partition("-")
    try:
        seeds = range(int(first), int(last or first) + 1)
    except ValueError:
        msg = f"{text!r} is not A-B (two whole numbers)"
        raise argparse.ArgumentTypeError(msg) from None
    if not seeds:
        msg = f"{text!r} names no seed: A must not exceed B"
        raise argparse.ArgumentTypeError(msg)
    return seeds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--quick", action="store_true", help="Two CV 3%% histories only.")
    parser.add_argument("--detector", default="edivisive", choices=sorted(DETECTORS))
    parser.add_argument("--workers", type=int, default=2, help="Processes judging histories.")
    parser.add_argument("--no-compare", action="store_true", help="Do not time compare.")
    parser.add_argument(
        "--policy",
        type=Path,
        help="A YAML file with a regression section (default: the shipped catalog's).",
    )
    parser.add_argument(
        "--no-ab", action="store_true", help="No A/B jobs: the run-to-run statistics alone."
    )
    which.add_argument(
        "--seeds",
        type=seed_range,
        help="CV 3%% histories with changes of these seeds (A-B) instead of the bench's own.",
    )
    args = parser.parse_args(argv)
    try:
        policy = policy_file(args.policy or ROOT / "catalogs" / "benchmark.yaml")
    except CatalogError as exc:
        print(f"bench_verdicts: {exc}", file=sys.stderr)
        return 2
    if args.no_ab:
        policy = replace(policy, confirm=replace(policy.confirm, enabled=False))
    specs = shipped_specs()
    start = time.perf_counter()
    histories = QUICK if args.quick else HISTORIES
    if args.seeds:
        histories = tuple((0.03, seed, True) for seed in args.seeds)
    tallies = run_all(specs, policy, args.detector, histories, args.workers)
    baselines = full_baselines(specs, policy)
    judged = time.perf_counter() - start
    timed = None if args.no_compare else time_compare()
    print(f"## Verdicts on synthetic histories of the shipped schedule ({args.detector})\n")
    for cv, tally in sorted(tallies.items()):
        print("\n".join(details(cv, tally)))
    print("\n".join(targets(tallies[0.03], baselines, timed)))
    print()
    print("\n".join(oracle(tallies[0.03], specs, policy)))
    print(f"\nJudged in {judged:.0f} s ({args.workers} processes).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
