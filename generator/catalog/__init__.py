"""Stage 1, load: the catalog files on disk to one typed, validated, frozen Catalog.

`load(root)` reads `catalogs/benchmark.yaml` and `catalogs/accuracy.yaml` with
ruamel.yaml (round trip, so every error names its line), validates each against its JSON
Schema and builds the typed model. Every refusal is a CatalogError naming file and line.
"""

from __future__ import annotations

import os
from pathlib import Path

from generator.catalog.accuracy_catalog import AccuracyBuilder
from generator.catalog.benchmark_catalog import BenchmarkBuilder
from generator.catalog.catalog_types import Catalog
from generator.catalog.config_section import build_configs
from generator.catalog.groups import build_presets, build_schedules, known_values
from generator.catalog.reader import Reader
from generator.catalog.regression import build_policy
from generator.catalog.schema import validate
from generator.catalog.yamlio import load_mapping

BENCHMARK = "catalogs/benchmark.yaml"
ACCURACY = "catalogs/accuracy.yaml"


def _read(root: Path, rel: str, kind: str) -> Reader:
    """Errors name the file as the user types it: relative to the repository root."""
    path = root / rel
    shown = rel if root.resolve() == Path.cwd().resolve() else os.path.normpath(path)
    doc = load_mapping(path, shown)
    validate(kind, doc, shown)
    return Reader(doc, shown)


def _distinct_files(r: Reader, titles: list[str]) -> None:
    """Each recipe is a file docs/recipes/<title>.md: two titles that differ only in case
    are one file on a case-insensitive file system (macOS, Windows checkouts)."""
    seen: dict[str, str] = {}
    for title in titles:
        first = seen.setdefault(title.casefold(), title)
        if first != title:
            msg = (
                f"recipe '{title}' and recipe '{first}' differ only in case, and name one "
                "file on a case-insensitive file system: rename one"
            )
            raise r.fail(msg, ["recipes", title])


def load(root: Path) -> Catalog:
    """The catalogs under `root`, validated and typed."""
    return build(_read(root, BENCHMARK, "benchmark"), _read(root, ACCURACY, "accuracy"))


def build(bench_r: Reader, acc_r: Reader) -> Catalog:
    """The typed catalog of two validated documents (`catalog.at_ref` reads them from a
    commit)."""
    bench = BenchmarkBuilder(bench_r)
    configs = build_configs(bench)
    known = known_values(bench, configs)
    schedules = build_schedules(bench, known)
    presets = build_presets(bench, configs, known)
    recipes = tuple(
        (str(title), bench_r.selectors(sel, ["recipes", title], known))
        for title, sel in (bench_r.doc.get("recipes") or {}).items()
    )
    _distinct_files(bench_r, [title for title, _ in recipes])
    acc = AccuracyBuilder(acc_r, bench, configs)
    allowed = acc_r.doc.get("allowed_differences") or {}
    return Catalog(
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
        accuracy_schedule=acc.schedule,
        allowed_env_differences=tuple(str(x) for x in allowed.get("env", [])),
        allowed_arg_differences=tuple(str(x) for x in allowed.get("args", [])),
        cases=acc.cases(),
        estimates=bench.estimates,
        samplings=tuple(bench.samplings.values()),
        recipes=recipes,
        clients=tuple(bench.clients.values()),
        nightly_window_days=int(bench_r.doc["images"].get("nightly_window_days", 7)),
        image_releases=bench.image_releases,
        image_build=bench.image_build,
        regression=build_policy(bench_r.doc.get("regression"), bench_r.shown),
    )
