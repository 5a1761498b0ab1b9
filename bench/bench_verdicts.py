"""The verdicts' quality on synthetic histories of the shipped schedule: `make bench` (not
part of `make test`).

Each history (verdict_history.py: the shipped cron groups on their days, nightly accuracy
runs between them, the noise and the injected changes listed there) is judged night by
night with the functions `results compare` judges with (history.py -> judge.py ->
events.py), each run of each config against the series of its server so far, the events
of the previous night of that server carried as `compare` reads them from the manifests.
Then it prints, per throughput CV, false alarms, clean runs that turn red, detection and
delay per injected change, events per injected change, and the targets table (at CV 3%)
with whether each target is met; the last row times `results compare` on the five-year
history of bench_results.py.

    python bench/bench_verdicts.py [--quick] [--detector edivisive|otava] [--no-compare]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from verdict_history import (  # noqa: E402
    ConfigRun,
    ConfigSpec,
    History,
    Injection,
    generate,
)

from generator.catalog.regression import Policy, policy_file  # noqa: E402
from generator.results.carry import Earlier, carried  # noqa: E402
from generator.results.changepoint import Detector, edivisive  # noqa: E402
from generator.results.events import Event, events, merged  # noqa: E402
from generator.results.history import (  # noqa: E402
    PointKey,
    RunInfo,
    Sample,
    ServerKey,
    ServerSeries,
)
from generator.results.judge import Rules, judge_server, rules  # noqa: E402

def otava(values: Sequence[float], p_value: float, permutations: int) -> list[int]:
    """Apache Otava's change points (its public `compute_change_points`: E-Divisive's split
    with a Student t-test for significance), for the comparison of the two libraries; only
    where `apache-otava` is installed (it is not a dependency, see docs/results.md)."""
    from otava.analysis import compute_change_points

    found, _ = compute_change_points(
        list(values), window_len=max(len(values), 2), max_pvalue=p_value, min_magnitude=0.0
    )
    return sorted(int(c.index) for c in found)


DETECTORS: dict[str, Detector] = {"edivisive": edivisive, "otava": otava}
RUNNER = "atom-mi355-8gpu-aac-runner"
FAMILY = "rocm/atom-dev"
# (cv, seed, injected changes?) of each history.
HISTORIES = (
    *((0.03, s, True) for s in (1, 2, 3, 4)),
    *((0.03, s, False) for s in (5, 6)),
    *((0.01, s, True) for s in (7, 8)),
    (0.01, 9, False),
    *((0.06, s, True) for s in (10, 11)),
    (0.06, 12, False),
)
DAYS = 364
THROUGHPUT = "output_throughput_per_gpu"


def shipped_specs() -> list[ConfigSpec]:
    """The shipped catalog's benchmark configs with their points and cron weekdays."""
    from generator.catalog import load
    from generator.expand import expand

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
        mode = suites[config.suite].server_modes[0]
        cells = ex.cells[(config.prefix, mode)]
        out.append(
            ConfigSpec(
                name=config.prefix,
                points=tuple(
                    sorted((c.pair.isl, c.pair.osl, c.concurrency) for c in cells)
                ),
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
        key = PointKey(isl=isl, osl=osl, concurrency=c)
        out[key] = (
            None
            if values is None
            else Sample(values=values, interactivity=cr.interactivity.get((isl, osl, c)))
        )
    return out


def series_of(
    spec: ConfigSpec, past: Server, info: RunInfo, cr: ConfigRun, depth: int
) -> ServerSeries:
    """The server's series as series.py reads it from a history: the runs of this
    fingerprint, preceded by the previous fingerprint's when there are few."""
    now = samples(cr)
    runs = [*past.runs, (info, cr, now)]
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
    """What one CV's histories gave."""

    clean_point_nights: int = 0
    false_confirmed: int = 0  # unattributed confirmed events, counted once per run reported
    false_suspected: int = 0
    clean_runs: int = 0
    clean_runs_red: int = 0
    clean_runs_suspected: int = 0
    outliers: int = 0
    outliers_confirmed: int = 0
    # injection id -> (first flagged k, first confirmed k), event ids
    flagged: dict[str, int] = field(default_factory=dict)
    confirmed: dict[str, int] = field(default_factory=dict)
    event_ids: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    exact: dict[str, bool] = field(default_factory=dict)
    # what confirmed the false alarms that turned runs red: (scope, metric, how)
    sources: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    injections: list[Injection] = field(default_factory=list)
    # config -> its measured run indices (a lost run is not a run of the config)
    measured: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    seconds: float = 0.0
    judged: int = 0


# An event whose first bad run lies up to this many runs of its config before an
# injected change, and that is open while the change is, is the change's (a suspicion
# that was open when the change came is carried on by it); `exact` counts the events that
# name the change's own first run.
EARLY = 3


def as_earlier(e: Event) -> Earlier:
    return Earlier(
        id=e.id,
        state=e.state,
        first_bad_run=e.first_bad_run,
        last_good_run=e.last_good_run,
        confirmed_by=e.confirmed_by,
        confirmed_in=e.confirmed_in,
    )


def attributed(
    event: Event, injections: Sequence[Injection], k_of: dict[str, int], now: int
) -> Injection | None:
    onset = k_of.get(event.first_bad_run)
    if onset is None:
        return None
    for inj in injections:
        if not inj.start - EARLY <= onset < inj.start + inj.length + 1:
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
    for inj in h.injections:
        by_config[inj.config].append(inj)
    tally.injections.extend(h.injections)
    depth = r.policy.history
    # The final events of each server's last run, as compare reads them from its manifest.
    earlier: dict[tuple[str, str], list[Earlier]] = {}
    for run in h.runs:
        if run.kind != "benchmark":
            continue
        active_run = False
        red = False
        suspected = False
        for name, cr in run.configs.items():
            spec = h.specs[name]
            info = RunInfo(
                name=run.name,
                fingerprint=cr.fingerprint,
                provenance=(("image_digest", run.image_digest), ("sglang_version", run.sglang_version)),
            )
            k_of[name][run.name] = cr.index
            tally.measured[f"{h.seed}:{name}"].append(cr.index)
            series = series_of(spec, servers[name], info, cr, depth)
            start = time.perf_counter()
            judged = judge_server(series, r)
            server = (name, cr.fingerprint)
            found = merged([carried(e, earlier.get(server), e.stretch) for e in events(judged)])
            earlier[server] = [as_earlier(e) for e in found]
            tally.seconds += time.perf_counter() - start
            tally.judged += 1
            injections = by_config[name]
            active = [i for i in injections if i.active(cr.index)]
            if active:
                active_run = True
            else:
                tally.clean_point_nights += sum(v is not None for v in cr.values.values())
            for e in found:
                inj = attributed(e, injections, k_of[name], cr.index)
                if inj is None:
                    if e.state == "confirmed":
                        tally.false_confirmed += 1
                        if e.new_confirmation:
                            red = True
                            for f in e.found:
                                if f.finding.confirmed_at == series.current:
                                    tally.sources[(f.scope, f.metric, f.how)] += 1
                    else:
                        tally.false_suspected += 1
                        suspected = True
                    continue
                tally.flagged.setdefault(inj.id, cr.index)
                if e.state == "confirmed" and inj.id not in tally.confirmed:
                    tally.confirmed[inj.id] = cr.index
                    tally.exact[inj.id] = k_of[name].get(e.first_bad_run) == inj.start
                tally.event_ids[inj.id].add(e.id)
            servers[name].runs.append((info, cr, samples(cr)))
            outlier_confirmed(tally, found, cr, servers[name], k_of[name])
        if not active_run:
            tally.clean_runs += 1
            tally.clean_runs_red += red
            tally.clean_runs_suspected += suspected


def outlier_confirmed(
    tally: Tally, found: Iterable[Event], cr: ConfigRun, server: Server, k_of: dict[str, int]
) -> None:
    """An outlier one run before is confirmed when an event with it as first bad run and
    its point is confirmed now."""
    if len(server.runs) < 2:
        tally.outliers += len(cr.outliers)
        return
    before = server.runs[-2][1]
    for e in found:
        if e.state != "confirmed" or k_of.get(e.first_bad_run) != before.index:
            continue
        for isl, osl, c in before.outliers:
            if PointKey(isl=isl, osl=osl, concurrency=c) in e.points:
                tally.outliers_confirmed += 1
    tally.outliers += len(cr.outliers)


def _one(args: tuple[list[ConfigSpec], Policy, str, tuple[float, int, bool], int]) -> Tally:
    specs, policy, detector, (cv, seed, inject), days = args
    tally = Tally()
    h = generate(specs, cv=cv, days=days, seed=seed, inject=inject)
    judge_history(h, rules(policy, DETECTORS[detector]), tally)
    return tally


def merge(into: Tally, more: Tally) -> None:
    for name in (
        "clean_point_nights", "false_confirmed", "false_suspected", "clean_runs",
        "clean_runs_red", "clean_runs_suspected", "outliers", "outliers_confirmed", "judged",
    ):  # fmt: skip
        setattr(into, name, getattr(into, name) + getattr(more, name))
    into.seconds += more.seconds
    into.flagged.update(more.flagged)
    into.confirmed.update(more.confirmed)
    into.exact.update(more.exact)
    into.event_ids.update(more.event_ids)
    into.injections.extend(more.injections)
    into.measured.update(more.measured)
    into.sources.update(more.sources)


def run_all(
    specs: list[ConfigSpec],
    policy: Policy,
    detector: str,
    histories: Sequence[tuple[float, int, bool]],
    days: int,
    workers: int,
) -> dict[float, Tally]:
    """Every history judged (in `workers` processes), the tallies merged per CV."""
    jobs = [(specs, policy, detector, h, days) for h in histories]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            done = pool.map(_one, jobs, chunksize=1)
    else:
        done = [_one(job) for job in jobs]
    out: dict[float, Tally] = defaultdict(Tally)
    for (cv, _, _), tally in zip(histories, done, strict=True):
        merge(out[cv], tally)
    return out


def rate(n: int, d: int) -> str:
    return f"{100 * n / d:.0f}%" if d else "-"


def delay(t: Tally, inj: Injection, k: int) -> int:
    """Measured runs of the config from the injection's first to run `k`, both counted."""
    return sum(1 for i in t.measured[inj.id.split('#')[0]] if inj.start <= i <= k)


def detection(t: Tally, kind: str, size: float, within: int, confirmed: bool) -> tuple[int, int]:
    pool = [i for i in t.injections if i.kind == kind and math.isclose(i.size, size)]
    hits = t.confirmed if confirmed else t.flagged
    good = sum(1 for i in pool if i.id in hits and delay(t, i, hits[i.id]) <= within)
    return good, len(pool)


def report(tallies: dict[float, Tally]) -> None:
    for cv, t in sorted(tallies.items()):
        print(f"\n## CV {cv:.0%}: {t.judged} server-runs judged in {t.seconds:.1f} s")
        print(
            f"false confirmed / 1000 clean point-nights: {1000 * t.false_confirmed / max(t.clean_point_nights, 1):.2f} "
            f"({t.false_confirmed} / {t.clean_point_nights}); false suspected events: {t.false_suspected}"
        )
        print(
            f"clean runs red: {t.clean_runs_red} / {t.clean_runs} ({rate(t.clean_runs_red, t.clean_runs)}); "
            f"with a suspected event: {rate(t.clean_runs_suspected, t.clean_runs)}"
        )
        print(f"one-run outliers confirmed: {t.outliers_confirmed} / {t.outliers}")
        print("new false confirmations by source:", dict(t.sources.most_common()))
        for kind in ("config", "point"):
            for size in (-0.02, -0.05, -0.10, -0.20):
                s1 = detection(t, kind, size, 1, False)
                c2 = detection(t, kind, size, 2, True)
                c4 = detection(t, kind, size, 4, True)
                c7 = detection(t, kind, size, 7, True)
                print(
                    f"{kind:6} {size:+.0%}: suspected 1st run {rate(*s1)}, confirmed by run 2 {rate(*c2)}, "
                    f"4 {rate(*c4)}, 7 {rate(*c7)} (n={s1[1]})"
                )
        for kind in ("drift", "staircase", "fingerprint"):
            pool = [i for i in t.injections if i.kind == kind]
            flagged = [delay(t, i, t.flagged[i.id]) for i in pool if i.id in t.flagged]
            conf = [delay(t, i, t.confirmed[i.id]) for i in pool if i.id in t.confirmed]
            print(
                f"{kind}: flagged {len(flagged)}/{len(pool)} (median run {statistics.median(flagged) if flagged else '-'}), "
                f"confirmed {len(conf)}/{len(pool)} (median run {statistics.median(conf) if conf else '-'})"
            )
        if os.environ.get("BENCH_VERDICTS_MISSES"):
            for i in t.injections:
                if i.kind in ("config", "point") and delay(t, i, t.confirmed.get(i.id, 10**6)) > 4:
                    print("  missed:", i)
        steps = [i for i in t.injections if i.kind == "config" and i.id in t.flagged]
        per = [len(t.event_ids[i.id]) for i in steps]
        print(f"events per detected config-wide step: mean {statistics.fmean(per) if per else 0:.2f}, max {max(per, default=0)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--detector", default="edivisive", choices=sorted(DETECTORS))
    parser.add_argument("--workers", type=int, default=2, help="Processes judging histories.")
    parser.add_argument(
        "--policy", type=Path, help="A YAML file with a regression section (default: the defaults)."
    )
    args = parser.parse_args(argv)
    policy = policy_file(args.policy) if args.policy else Policy()
    specs = shipped_specs()
    histories = HISTORIES[:1] + HISTORIES[4:5] if args.quick else HISTORIES
    start = time.perf_counter()
    tallies = run_all(specs, policy, args.detector, histories, DAYS, args.workers)
    report(tallies)
    print(f"\n{time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
