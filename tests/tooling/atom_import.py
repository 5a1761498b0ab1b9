"""The ATOM reference catalog (JSON) as a typed Catalog, so `lint` can judge it (test
tooling: the tests show that lint finds the known problems of the system we replace).

Reads `*_sglang_benchmark_models.json` (templates.extra_args / templates.env_vars strings,
a models list) and `*_sglang_models_accuracy.json` (a list of cases with flat strings). What
the JSON does not say is filled in the way the reference workflows do it: one server mode
that puts `--tensor-parallel-size <tp_size>` in front (the Mesh script's behaviour; the
config's own flag wins), the OOB and Mesh grids of SPEC.md, and a GPU count per runner label
read from the label (`...-8gpu-...`, `...-4`), else 8. An accuracy case is linked to the
benchmark config with the same model path, layout and spec, as SPEC.md says they should be.
"""

from __future__ import annotations

import json
from typing import Any

from generator.catalog.catalog_types import (
    LEVELS,
    NIGHTLY,
    Case,
    Catalog,
    Config,
    PairExtras,
    Preset,
    Selector,
    one_of,
)
from generator.catalog.flags import canonical, override_env, override_flags
from generator.catalog.server_types import EnvVar, Flag, Model, Parallel, Runner, ServerMode
from generator.errors import Loc
from generator.lint.rules.base import flag_map, int_flag
from tests.tooling.atom_reference import (
    ATOM_SUITE,
    CLIENT,
    ESTIMATES,
    MESH_PAIRS,
    MODE,
    OOB_CONCURRENCY,
    OOB_PAIRS,
    STANDARD,
    items,
    model_fields,
    pair_of,
    parse_args,
    parse_env,
    reference_suite,
    runner_gpus,
    slug,
    spec_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


class _Source:
    """One JSON file: its shown name and a line finder for locations."""

    def __init__(self, path: Path) -> None:
        self.shown = str(path)
        self.lines = path.read_text(encoding="utf-8").splitlines()
        self.data: Any = json.loads("\n".join(self.lines))

    def loc(self, *needles: str) -> Loc:
        """The first line holding all needles (JSON-quoted), else line 1."""
        quoted = [json.dumps(n) for n in needles]
        for n, text in enumerate(self.lines, 1):
            if all(q in text for q in quoted):
                return Loc(self.shown, n)
        return Loc(self.shown, 1)


class _Builder:
    def __init__(self, bench: _Source, acc: _Source) -> None:
        self.bench, self.acc = bench, acc
        templates = bench.data["templates"]
        self.arg_templates = {
            k: parse_args(v, bench.loc(k, v)) for k, v in templates["extra_args"].items()
        }
        self.env_templates = {
            k: parse_env(v, bench.loc(k, v)) for k, v in templates["env_vars"].items()
        }
        self.models: dict[str, Model] = {}
        self.used: list[str] = []

    def model(self, path: str, loc: Loc) -> Model:
        if path not in self.models:
            family, precision = model_fields(path)
            self.models[path] = Model(
                name=path,
                path=path,
                family=family,
                precision=precision,
                params_b=None,
                startup_minutes=None,
                loc=loc,
            )
        return self.models[path]

    def args(self, raw: str | list[Any] | None, loc: Loc, used: list[str]) -> tuple[Flag, ...]:
        flags: tuple[Flag, ...] = ()
        for item in items(raw):
            if item in self.arg_templates:
                used.append(item)
            more = self.arg_templates.get(item) or parse_args(item, loc)
            flags = override_flags(flags, more)  # argparse: the last one wins
        return flags

    def env(self, raw: str | list[Any] | None, loc: Loc, used: list[str]) -> tuple[EnvVar, ...]:
        variables: tuple[EnvVar, ...] = ()
        for item in items(raw):
            if item in self.env_templates:
                used.append(item)
            more = self.env_templates.get(item) or parse_env(item, loc)
            variables = override_env(variables, more)
        return variables

    def config(self, raw: dict[str, Any]) -> Config:
        loc = self.bench.loc(raw["prefix"])
        used: list[str] = []
        args = self.args(raw.get("extra_args"), loc, used)
        flags = flag_map(tuple(t for f in args for t in f.tokens()))
        parallel = Parallel(
            tp=int(raw.get("tp_size", int_flag(flags, canonical("--tp-size")))),
            dp=int(raw.get("dp_size", int_flag(flags, canonical("--dp-size")))),
            ep=int(raw.get("ep_size", int_flag(flags, canonical("--ep-size")))),
        )
        mesh = raw.get("workload_label") == "SGLang-Mesh"
        by_pair = raw.get("supported_concurrency_values_by_pair")
        if by_pair:
            grid = tuple((pair_of(p), tuple(int(c) for c in cs)) for p, cs in by_pair.items())
        else:
            grid = tuple((p, OOB_CONCURRENCY) for p in (MESH_PAIRS if mesh else OOB_PAIRS))
        extra_args = raw.get("case_extra_args_by_pair") or {}
        extra_env = raw.get("case_env_vars_by_pair") or {}
        per_pair = tuple(
            (
                pair_of(p),
                PairExtras(
                    args=self.args(extra_args.get(p), loc, used),
                    env=self.env(extra_env.get(p), loc, used),
                ),
            )
            for p in dict.fromkeys([*extra_args, *extra_env])
        )
        return Config(
            prefix=raw["prefix"],
            display=raw["display"],
            dashboard_model=raw.get("dashboard_model"),
            preset=raw["prefix"],
            suite=raw.get("workload_label", "SGLang-OOB"),
            model=self.model(raw["path"], loc),
            parallel=parallel,
            spec=spec_of(flags),
            runner=raw["runner"],
            sampling=STANDARD,
            args=args,
            env=self.env(raw.get("env_vars"), loc, used),
            grid=grid,
            per_pair=per_pair,
            fragments=tuple(used),
            waivers=(),
            loc=loc,
        )

    def case(self, raw: dict[str, Any], configs: tuple[Config, ...]) -> Case:
        loc = self.acc.loc(raw["model_name"])
        args = self.args(raw.get("extraArgs", ""), loc, [])
        flags = flag_map(tuple(t for f in args for t in f.tokens()))
        parallel = Parallel(
            tp=int_flag(flags, "--tensor-parallel-size"),
            dp=int_flag(flags, "--data-parallel-size"),
            ep=int_flag(flags, "--expert-parallel-size"),
        )
        spec = spec_of(flags)
        twin = next(
            (
                c
                for c in configs
                if c.model.path == raw["model_path"]
                and c.parallel == parallel
                and c.spec == spec
                and c.suite == "SGLang-OOB"
            ),
            None,
        )
        return Case(
            id=slug(raw["model_name"]),
            name=raw["model_name"],
            suite="atom",
            benchmark=twin.prefix if twin else None,
            benchmark_suite=twin.suite if twin else None,
            model=self.model(raw["model_path"], loc),
            parallel=parallel,
            spec=spec,
            args=args,
            env=self.env(raw.get("env_vars", ""), loc, []),
            unset_env=(),
            runner=raw["runner"],
            levels=(one_of(raw.get("test_level", NIGHTLY), LEVELS),),
            threshold=float(raw["accuracy_threshold"]),
            images=(),
            fragments=(),
            waivers=(),
            loc=loc,
        )


def import_reference(bench_path: Path, acc_path: Path) -> Catalog:
    """Both reference JSON files as one Catalog (not validated: `lint` judges it)."""
    bench, acc = _Source(bench_path), _Source(acc_path)
    b = _Builder(bench, acc)
    configs = tuple(b.config(raw) for raw in bench.data["models"])
    cases = tuple(b.case(raw, configs) for raw in acc.data)
    top = Loc(bench.shown, 1)
    suites = tuple(
        reference_suite(name, key, tuple(c for c in configs if c.suite == name), top)
        for name, key in (("SGLang-OOB", "oob"), ("SGLang-Mesh", "mesh"))
    )
    labels = dict.fromkeys(
        [*(c.runner for c in configs), *(c.runner for c in cases), suites[0].runner]
    )
    presets = tuple(
        Preset(
            suite=c.suite,
            name=c.prefix,
            aliases=(),
            per_config=True,
            loc=c.loc,
            select_loc=c.loc,
            select=(Selector(fields=(("prefix", (c.prefix,)),)),),
        )
        for c in configs
    ) + tuple(
        Preset(
            suite=s.name,
            name="all",
            aliases=(),
            per_config=False,
            loc=top,
            select_loc=top,
            select=(Selector(fields=()),),
        )
        for s in suites
        if any(c.suite == s.name for c in configs)
    )
    tp_front = Flag(name="--tensor-parallel-size", values=("{tp}",), loc=top)
    return Catalog(
        benchmark_file=bench.shown,
        accuracy_file=acc.shown,
        runners=tuple(Runner(label=x, gpus=runner_gpus(x), count=1, loc=top) for x in labels),
        default_image="rocm/atom-dev:sglang-latest",
        models=tuple(b.models.values()),
        arg_fragments=tuple(
            (k, tuple(v), v[0].loc if v else top) for k, v in b.arg_templates.items()
        ),
        env_fragments=tuple(
            (k, tuple(v), v[0].loc if v else top) for k, v in b.env_templates.items()
        ),
        server_modes=(
            ServerMode(
                name=MODE,
                description="reference launch: --tensor-parallel-size <tp> in front",
                image_pattern=None,
                precedence="config",
                variables=(),
                args=(tp_front,),
                env=(),
                spec_env=(),
                loc=top,
            ),
        ),
        suites=suites,
        configs=configs,
        schedules=(),
        presets=presets,
        accuracy_suites=(ATOM_SUITE,),
        # The JSON carries no cron; the one SPEC.md gives the nightly.
        accuracy_schedule=("0 16 * * *", "nightly"),
        allowed_env_differences=("AITER_QUICK_REDUCE_QUANTIZATION",),
        allowed_arg_differences=(),
        cases=cases,
        estimates=ESTIMATES,
        samplings=(STANDARD,),
        clients=(CLIENT,),
    )
