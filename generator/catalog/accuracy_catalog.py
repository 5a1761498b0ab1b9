"""Build the typed accuracy catalog; cases linked to a benchmark config inherit its server."""

from __future__ import annotations

from typing import Any

from generator.catalog.catalog_types import LEVELS, AccuracySuite, Case, Config, Evaluator, one_of
from generator.catalog.cron import cron_problem
from generator.catalog.flag_checks import model_arg_problem
from generator.catalog.flags import merge_env, merge_flags, override_env, override_flags
from generator.catalog.sections import build_models, build_parallel, number
from generator.core.contract import EVALUATOR_KINDS
from generator.imageref.allowed import check_allowed
from generator.imageref.reference import ImageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.benchmark_catalog import BenchmarkBuilder
    from generator.catalog.reader import Reader
    from generator.catalog.server_types import Model


def joined_value_problem(name: str, value: object) -> str | None:
    """Why a value cannot go into a comma-joined `key=value,...` argument (lm-eval's
    --model_args), or None: a ',' would start a new key there, an '=' end one."""
    text = str(value)
    bad = sorted({c for c in text if c in ",="})
    if not bad:
        return None
    shown = " and ".join(f"'{c}'" for c in bad)
    return (
        f"{name} holds {shown}: lm-eval joins its model_args as key=value,... and would read "
        "what follows as another argument"
    )


def _scalar(value: object) -> str | int | float | bool:
    if isinstance(value, bool | int | float):
        return value
    return str(value)


def build_suites(r: Reader) -> dict[str, AccuracySuite]:
    out = {}
    for name, raw in r.doc["suites"].items():
        ev = raw["evaluator"]
        settings = tuple(
            (str(k), v if isinstance(v, int) else str(v))
            for k, v in ev.items()
            if k not in ("kind", "model_args")
        )
        model_args = tuple((str(k), _scalar(v)) for k, v in (ev.get("model_args") or {}).items())
        for key, value in model_args:
            problem = model_arg_problem(key) or joined_value_problem(f"model_args.{key}", value)
            if problem:
                raise r.fail(problem, ["suites", name, "evaluator", "model_args", key])
        out[str(name)] = AccuracySuite(
            name=str(name),
            timeout_minutes=tuple((str(k), int(v)) for k, v in raw["timeout_minutes"].items()),
            eval_timeout_minutes=int(raw["eval_timeout_minutes"]),
            evaluator=Evaluator(
                kind=one_of(ev["kind"], EVALUATOR_KINDS), settings=settings, model_args=model_args
            ),
        )
    return out


class AccuracyBuilder:
    def __init__(self, r: Reader, bench: BenchmarkBuilder, configs: tuple[Config, ...]) -> None:
        self.r = r
        self.bench = bench
        self.configs = {c.prefix: c for c in configs}
        self.models: dict[str, Model] = dict(bench.models)
        for name, model in build_models(r, r.doc.get("models")).items():
            if name in self.models:
                msg = f"model '{name}' is already declared in the benchmark catalog"
                raise r.fail(msg, ["models", name])
            self.models[name] = model
        self.suites = build_suites(r)
        cron = str(r.doc["schedule"]["cron"])
        problem = cron_problem(cron)
        if problem:
            raise r.fail(problem, ["schedule", "cron"])
        self.schedule = (cron, str(r.doc["schedule"]["level"]))

    def _runners(
        self, raw: str | Mapping[str, Any], levels: tuple[str, ...], path: list[str | int]
    ) -> tuple[str, tuple[tuple[str, str], ...]]:
        """A label for every level: one label, or a mapping of each of the case's levels to
        its label (the levels of one case may run on different machines)."""
        if not isinstance(raw, dict):
            return self.r.known(str(raw), self.bench.runners, "runner", path), ()
        for level in raw:
            if str(level) not in levels:
                runs = ", ".join(levels)
                msg = f"runner names level '{level}', which the case does not run at ({runs})"
                raise self.r.fail(msg, [*path, level])
        missing = [level for level in levels if level not in raw]
        if missing:
            msg = f"runner names no label for level {', '.join(missing)}; give one per level"
            raise self.r.fail(msg, path)
        pairs = tuple(
            (level, self.r.known(str(raw[level]), self.bench.runners, "runner", [*path, level]))
            for level in levels
        )
        return pairs[0][1], pairs

    def case(self, i: int, raw: Mapping[str, Any]) -> Case:
        r = self.r
        path: list[str | int] = ["cases", i]
        suite = self.r.known(str(raw["suite"]), self.suites, "accuracy suite", [*path, "suite"])
        levels = tuple(one_of(level, LEVELS) for level in raw["levels"])
        runner, level_runners = self._runners(raw["runner"], levels, [*path, "runner"])
        used: list[str] = []
        twin = raw.get("benchmark")
        own = None if twin is not None else build_parallel(raw["parallel"])
        extra_flags = (
            r.items(raw.get("args") or [], [*path, "args"], self.bench.arg_fragments, "args", used)
            if own is None
            else r.server_args(raw.get("args") or [], path, self.bench.arg_fragments, used, own)
        )
        extra_env = r.items(
            raw.get("env") or [], [*path, "env"], self.bench.env_fragments, "env", used
        )
        unset = tuple(str(u) for u in raw.get("unset_env", []))
        if own is None:
            config = self.configs[
                self.r.known(str(twin), self.configs, "benchmark config", [*path, "benchmark"])
            ]
            present = {v.name for v in config.env}
            for j, name in enumerate(unset):
                if name not in present:
                    msg = f"unset_env '{name}' is not set by benchmark config '{config.prefix}'"
                    raise r.fail(msg, [*path, "unset_env", j])
            model, parallel, spec = config.model, config.parallel, config.spec
            flags = override_flags(config.args, merge_flags(extra_flags))
            env = tuple(
                v for v in override_env(config.env, merge_env(extra_env)) if v.name not in unset
            )
            used = [*config.fragments, *used]
        else:
            model = self.models[
                self.r.known(str(raw["model"]), self.models, "model", [*path, "model"])
            ]
            parallel, spec = own, str(raw.get("spec", "none"))
            flags, env = merge_flags(extra_flags), merge_env(extra_env)
        timeouts = dict(self.suites[suite].timeout_minutes)
        for j, level in enumerate(levels):
            if level not in timeouts:
                msg = (
                    f"case '{raw['id']}' runs at level {level}, but accuracy suite '{suite}' "
                    f"declares no timeout_minutes for {level}"
                )
                raise r.fail(msg, [*path, "levels", j])
        return Case(
            id=str(raw["id"]),
            name=str(raw["name"]),
            suite=suite,
            benchmark=str(twin) if twin is not None else None,
            benchmark_suite=self.configs[str(twin)].suite if twin is not None else None,
            model=model,
            parallel=parallel,
            spec=spec,
            args=flags,
            env=env,
            unset_env=unset,
            runner=runner,
            level_runners=level_runners,
            levels=levels,
            threshold=float(raw["threshold"]),
            images=self._images(raw.get("images") or {}, path),
            min_acceptance_rate=number(raw.get("min_acceptance_rate")),
            fragments=tuple(used),
            waivers=tuple((str(k), str(v)) for k, v in (raw.get("waive") or {}).items()),
            loc=r.loc(path),
        )

    def _images(self, raw: Mapping[str, Any], path: list[str | int]) -> tuple[tuple[str, str], ...]:
        """A case's images (key -> reference or nightly pattern), each of a repository
        the cases' server mode (the catalog's first) declares."""
        mode = next(iter(self.bench.modes.values()))
        for key, image in raw.items():
            try:
                check_allowed(str(image), mode.name, mode.image_repositories)
            except ImageError as e:
                raise self.r.fail(e.message, [*path, "images", key]) from e
        return tuple((str(k), str(v)) for k, v in raw.items())

    def cases(self) -> tuple[Case, ...]:
        seen: dict[str, int] = {}
        out = []
        for i, raw in enumerate(self.r.doc["cases"]):
            case = self.case(i, raw)
            if case.id in seen:
                msg = f"duplicate case id '{case.id}' (first at line {seen[case.id]})"
                raise self.r.fail(msg, ["cases", i, "id"])
            seen[case.id] = case.loc.line
            out.append(case)
        return tuple(out)
