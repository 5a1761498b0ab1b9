"""Catalog files on disk to one typed, validated Catalog."""

from __future__ import annotations

import os
from pathlib import Path

from generator.accuracy import AccuracyBuilder
from generator.catalog import BenchmarkBuilder
from generator.expand import cells_of
from generator.gcpause import without_cycle_collector
from generator.groups import build_presets, build_schedules, known_values
from generator.model import Catalog
from generator.pack import check_points_fit
from generator.parts import Reader
from generator.validate import validate
from generator.yamlio import load_mapping

BENCHMARK = "catalogs/benchmark.yaml"
ACCURACY = "catalogs/accuracy.yaml"


def _read(root: Path, rel: str, kind: str) -> Reader:
    """Errors name the file as the user types it: relative to the repository root."""
    path = root / rel
    shown = rel if root.resolve() == Path.cwd().resolve() else os.path.normpath(path)
    doc = load_mapping(path, shown)
    validate(kind, doc, shown)
    return Reader(doc, shown)


@without_cycle_collector
def load_catalog(root: Path) -> Catalog:
    bench_r = _read(root, BENCHMARK, "benchmark")
    acc_r = _read(root, ACCURACY, "accuracy")
    bench = BenchmarkBuilder(bench_r)
    configs = bench.configs()
    schedules = build_schedules(bench, configs)
    presets = build_presets(bench, configs)
    known = known_values(bench, configs)
    recipes = tuple(
        (str(title), bench_r.selectors(sel, ["recipes", title], known))
        for title, sel in (bench_r.doc.get("recipes") or {}).items()
    )
    acc = AccuracyBuilder(acc_r, bench, configs)
    cases = acc.cases()
    allowed = acc_r.doc.get("allowed_differences") or {}
    sched = acc_r.doc["schedule"]
    catalog = Catalog(
        benchmark_file=bench_r.shown,
        accuracy_file=acc_r.shown,
        runners=tuple(bench.runners.values()),
        default_image=str(bench_r.doc["images"]["default"]),
        models=tuple(acc.models.values()),
        arg_fragments=tuple(
            (k, v, bench_r.loc(["args", k])) for k, v in bench.arg_fragments.items()
        ),
        env_fragments=tuple(
            (k, v, bench_r.loc(["env", k])) for k, v in bench.env_fragments.items()
        ),
        server_modes=tuple(bench.modes.values()),
        suites=tuple(bench.suites.values()),
        configs=configs,
        schedules=schedules,
        presets=presets,
        accuracy_suites=tuple(acc.suites.values()),
        accuracy_schedule=(str(sched["cron"]), str(sched["level"])),
        allowed_env_differences=tuple(str(x) for x in allowed.get("env", [])),
        allowed_arg_differences=tuple(str(x) for x in allowed.get("args", [])),
        cases=cases,
        estimates=bench.estimates,
        samplings=tuple(bench.samplings.values()),
        recipes=recipes,
    )
    check_points_fit(catalog, cells_of(catalog, catalog.configs))
    return catalog
