"""Build the typed benchmark catalog from a validated document."""

from __future__ import annotations

from typing import Any

from generator.cron import cron_problem
from generator.errors import CatalogError, did_you_mean
from generator.flags import merge_env, merge_flags
from generator.model import (
    PER_SERVER,
    Config,
    EnvVar,
    Estimates,
    Flag,
    Model,
    Pair,
    PairExtras,
    Parallel,
    PointModel,
    Preset,
    Runner,
    Sampling,
    Schedule,
    Selector,
    ServerMode,
    StartupRule,
    Suite,
    Variable,
)
from generator.parts import Reader
from generator.select import matches

SELECT_FIELDS = ("suite", "family", "precision", "spec", "model", "prefix")


def parse_pair(text: str) -> Pair:
    isl, osl = text.split("x")
    return Pair(isl=int(isl), osl=int(osl))


def build_models(r: Reader, raw: Any) -> dict[str, Model]:
    return {
        str(name): Model(
            name=str(name),
            path=str(m["path"]),
            family=str(m["family"]),
            precision=str(m["precision"]),
            params_b=_number(m.get("params_b")),
            startup_minutes=_number(m.get("startup_minutes")),
            loc=r.loc(["models", name]),
        )
        for name, m in (raw or {}).items()
    }


def _number(raw: Any) -> float | None:
    return None if raw is None else float(raw)


def build_estimates(r: Reader, raw: Any) -> Estimates:
    """The declared estimates; the start-up rules go up in size and end with a catch-all."""
    path: list[str | int] = ["estimates"]
    rules = tuple(
        StartupRule(up_to_params_b=_number(x.get("up_to_params_b")), minutes=float(x["minutes"]))
        for x in raw["startup"]
    )
    for i, rule in enumerate(rules):
        last = i == len(rules) - 1
        if (rule.up_to_params_b is None) != last:
            msg = "every start-up rule but the last needs up_to_params_b; the last has none"
            raise r.fail(msg, [*path, "startup", i])
        if i and rule.up_to_params_b is not None:
            before = rules[i - 1].up_to_params_b
            if before is not None and rule.up_to_params_b <= before:
                msg = (
                    f"start-up rules must go up in size ({rule.up_to_params_b:g} after {before:g})"
                )
                raise r.fail(msg, [*path, "startup", i])
    timeout = int(raw["job_timeout_minutes"])
    bound = float(raw["max_job_minutes"])
    if bound > timeout:
        msg = f"max_job_minutes {bound:g} is longer than job_timeout_minutes {timeout}"
        raise r.fail(msg, [*path, "max_job_minutes"])
    point = raw["point"]
    return Estimates(
        max_job_minutes=bound,
        job_timeout_minutes=timeout,
        startup=rules,
        point=PointModel(
            overhead_minutes=float(point["overhead_minutes"]),
            prefill_tokens_per_gpu_second=float(point["prefill_tokens_per_gpu_second"]),
            decode_step_ms=float(point["decode_step_ms"]),
            decode_step_ms_per_request=float(point["decode_step_ms_per_request"]),
        ),
        loc=r.loc(path),
    )


def build_parallel(raw: Any) -> Parallel:
    return Parallel(tp=int(raw["tp"]), dp=int(raw.get("dp", 1)), ep=int(raw.get("ep", 1)))


class BenchmarkBuilder:
    def __init__(self, r: Reader) -> None:
        self.r = r
        d = r.doc
        self.runners = {
            str(k): Runner(
                label=str(k),
                gpus=int(v["gpus"]),
                count=int(v.get("count", 1)),
                loc=r.loc(["runners", k]),
            )
            for k, v in d["runners"].items()
        }
        self.models = build_models(r, d["models"])
        self.estimates = build_estimates(r, d["estimates"])
        self.arg_fragments = {str(k): r.flags(v, ["args", k]) for k, v in d["args"].items()}
        for name, flags in self.arg_fragments.items():
            merge_flags(flags)
            del name
        self.env_fragments = {str(k): r.env(v, ["env", k]) for k, v in d["env"].items()}
        self.samplings = {
            str(k): Sampling(
                name=str(k),
                prompts_per_concurrency=int(v["prompts_per_concurrency"]),
                warmups_per_concurrency=int(v["warmups_per_concurrency"]),
            )
            for k, v in d["sampling"].items()
        }
        self.modes = {str(k): self._mode(str(k), v) for k, v in d["server_modes"].items()}
        self.suites = {str(k): self._suite(str(k), v) for k, v in d["suites"].items()}

    def _check(self, value: str, known: Any, what: str, path: list[str | int]) -> str:
        if value not in known:
            raise self.r.fail(f"unknown {what} '{value}'{did_you_mean(value, known)}", path)
        return value

    def _mode(self, name: str, raw: Any) -> ServerMode:
        path: list[str | int] = ["server_modes", name]
        variables = tuple(
            Variable(name=str(k), flag=str(v["flag"]), default=str(v["default"]))
            for k, v in (raw.get("variables") or {}).items()
        )
        return ServerMode(
            name=name,
            description=str(raw["description"]),
            image_pattern=raw.get("image_pattern"),
            precedence=raw.get("precedence"),
            variables=variables,
            args=merge_flags(self.r.flags(raw["args"], [*path, "args"])),
            config_env=bool(raw.get("config_env", True)),
            env=self.r.env(raw.get("env") or {}, [*path, "env"]),
            spec_env=self.r.env(raw.get("spec_env") or {}, [*path, "spec_env"]),
            loc=self.r.loc(path),
        )

    def _suite(self, name: str, raw: Any) -> Suite:
        path: list[str | int] = ["suites", name]
        self._check(str(raw["runner"]), self.runners, "runner", [*path, "runner"])
        self._check(str(raw["sampling"]), self.samplings, "sampling", [*path, "sampling"])
        for i, mode in enumerate(raw["server_modes"]):
            self._check(str(mode), self.modes, "server mode", [*path, "server_modes", i])
        conc = raw.get("concurrency")
        return Suite(
            name=name,
            key=str(raw["key"]),
            runner=str(raw["runner"]),
            random_range_ratio=float(raw["random_range_ratio"]),
            sampling=str(raw["sampling"]),
            pairs=tuple(parse_pair(str(p)) for p in raw["pairs"]),
            concurrency=tuple(sorted(int(c) for c in conc)) if conc is not None else None,
            server_modes=tuple(str(m) for m in raw["server_modes"]),
            loc=self.r.loc(path),
        )

    def config(self, i: int, raw: Any) -> Config:
        r = self.r
        path: list[str | int] = ["configs", i]
        suite = self.suites[self._check(str(raw["suite"]), self.suites, "suite", [*path, "suite"])]
        model = self.models[self._check(str(raw["model"]), self.models, "model", [*path, "model"])]
        runner = self._check(
            str(raw.get("runner", suite.runner)), self.runners, "runner", [*path, "runner"]
        )
        sampling = self._check(
            str(raw.get("sampling", suite.sampling)),
            self.samplings,
            "sampling",
            [*path, "sampling"],
        )
        used: list[str] = []
        flags: list[Flag] = r.items(raw["args"], [*path, "args"], self.arg_fragments, "args", used)
        env: list[EnvVar] = r.items(raw["env"], [*path, "env"], self.env_fragments, "env", used)
        grid = self._grid(suite, raw.get("grid"), [*path, "grid"])
        per_pair = []
        for pair_text, extras in (raw.get("per_pair") or {}).items():
            pair = parse_pair(str(pair_text))
            pp: list[str | int] = [*path, "per_pair", pair_text]
            if pair not in [p for p, _ in grid]:
                raise r.fail(f"per_pair {pair} is not a pair this config runs", pp)
            per_pair.append(
                (
                    pair,
                    PairExtras(
                        args=merge_flags(
                            r.items(
                                extras.get("args") or [],
                                [*pp, "args"],
                                self.arg_fragments,
                                "args",
                                used,
                            )
                        ),
                        env=merge_env(
                            r.items(
                                extras.get("env") or [],
                                [*pp, "env"],
                                self.env_fragments,
                                "env",
                                used,
                            )
                        ),
                    ),
                )
            )
        return Config(
            prefix=str(raw["prefix"]),
            display=str(raw["display"]),
            dashboard_model=raw.get("dashboard_model"),
            preset=str(raw.get("preset", raw["prefix"])),
            suite=suite.name,
            model=model,
            parallel=build_parallel(raw["parallel"]),
            spec=str(raw.get("spec", "none")),
            runner=runner,
            sampling=self.samplings[sampling],
            args=self._at(merge_flags, flags, [*path, "args"]),
            env=self._at(merge_env, env, [*path, "env"]),
            grid=grid,
            per_pair=tuple(per_pair),
            fragments=tuple(used),
            waivers=tuple((str(k), str(v)) for k, v in (raw.get("waive") or {}).items()),
            startup_minutes=_number(raw.get("startup_minutes")),
            packing=str(raw.get("packing", PER_SERVER)),
            loc=r.loc(path),
        )

    def _at(self, merge: Any, items: list[Any], path: list[str | int]) -> Any:
        """Merge fragments; a conflict is reported at the list that combined them."""
        try:
            return merge(items)
        except CatalogError as e:
            raise self.r.fail(e.message, path) from e

    def _grid(
        self, suite: Suite, raw: Any, path: list[str | int]
    ) -> tuple[tuple[Pair, tuple[int, ...]], ...]:
        if raw is None:
            if suite.concurrency is None:
                msg = f"a grid is required: suite {suite.name} has no default concurrency"
                raise self.r.fail(msg, path[:-1])
            return tuple((p, suite.concurrency) for p in suite.pairs)
        out = []
        for pair_text, conc in raw.items():
            pair = parse_pair(str(pair_text))
            if pair not in suite.pairs:
                shown = ", ".join(str(p) for p in suite.pairs)
                raise self.r.fail(
                    f"pair {pair} is not one of suite {suite.name}'s pairs ({shown})",
                    [*path, pair_text],
                )
            out.append((pair, tuple(sorted(int(c) for c in conc))))
        order = {p: n for n, p in enumerate(suite.pairs)}
        return tuple(sorted(out, key=lambda item: order[item[0]]))

    def configs(self) -> tuple[Config, ...]:
        seen: dict[str, int] = {}
        out = []
        for i, raw in enumerate(self.r.doc["configs"]):
            config = self.config(i, raw)
            if config.prefix in seen:
                msg = f"duplicate prefix '{config.prefix}' (first at line {seen[config.prefix]})"
                raise self.r.fail(msg, ["configs", i, "prefix"])
            seen[config.prefix] = config.loc.line
            out.append(config)
        return tuple(out)

    def known_values(self, configs: tuple[Config, ...]) -> dict[str, set[str]]:
        return {
            "suite": set(self.suites),
            "family": {c.model.family for c in configs},
            "precision": {c.model.precision for c in configs},
            "spec": {c.spec for c in configs},
            "model": {c.model.name for c in configs},
            "prefix": {c.prefix for c in configs},
        }

    def schedules(self, configs: tuple[Config, ...]) -> tuple[Schedule, ...]:
        known = self.known_values(configs)
        out: list[Schedule] = []
        for i, raw in enumerate(self.r.doc["schedules"]):
            path: list[str | int] = ["schedules", i]
            cron = str(raw["cron"])
            problem = cron_problem(cron)
            if problem:
                raise self.r.fail(problem, [*path, "cron"])
            for other in out:
                if other.cron == cron or other.name == raw["name"]:
                    what = "cron" if other.cron == cron else "name"
                    raise self.r.fail(
                        f"schedule {what} repeats the one at line {other.loc.line}", [*path, what]
                    )
            mode = raw.get("server_mode")
            if mode is not None:
                self._check(str(mode), self.modes, "server mode", [*path, "server_mode"])
            select = self.r.selectors(raw["select"], [*path, "select"], known)
            if not select_configs_of(configs, select):
                raise self.r.fail(
                    f"cron group '{raw['name']}' selects no config", [*path, "select"]
                )
            out.append(
                Schedule(
                    name=str(raw["name"]),
                    title=str(raw["title"]),
                    cron=cron,
                    server_mode=mode,
                    select=select,
                    packing=str(raw.get("packing", PER_SERVER)),
                    loc=self.r.loc(path),
                )
            )
        return tuple(out)

    def presets(self, configs: tuple[Config, ...]) -> tuple[Preset, ...]:
        """One preset per config (every suite), then the declared group presets."""
        known = self.known_values(configs)
        out: list[Preset] = []
        names: dict[str, dict[str, int]] = {name: {} for name in self.suites}
        for i, c in enumerate(configs):
            used = names[c.suite]
            if c.preset in used:
                msg = f"preset name '{c.preset}' is already used at line {used[c.preset]}"
                raise self.r.fail(msg, ["configs", i])
            used[c.preset] = c.loc.line
            own: tuple[Selector, ...] = (Selector(fields=(("prefix", (c.prefix,)),)),)
            out.append(
                Preset(
                    suite=c.suite,
                    name=c.preset,
                    aliases=(),
                    per_config=True,
                    select=own,
                    loc=c.loc,
                )
            )
        for suite_name, entries in self.r.doc["presets"].items():
            spath: list[str | int] = ["presets", suite_name]
            self._check(str(suite_name), self.suites, "suite", spath)
            used = names[str(suite_name)]
            mine = tuple(c for c in configs if c.suite == suite_name)
            for i, raw in enumerate(entries):
                path: list[str | int] = [*spath, i]
                aliases = tuple(str(a) for a in raw.get("aliases", []))
                for name in (str(raw["name"]), *aliases):
                    if name in used:
                        msg = f"preset name '{name}' is already used at line {used[name]}"
                        raise self.r.fail(msg, [*path, "name"])
                    used[name] = self.r.loc(path).line
                select = self.r.selectors(raw["select"], [*path, "select"], known)
                if not select_configs_of(mine, select):
                    msg = f"preset '{raw['name']}' selects no config"
                    raise self.r.fail(msg, [*path, "select"])
                out.append(
                    Preset(
                        suite=str(suite_name),
                        name=str(raw["name"]),
                        aliases=aliases,
                        per_config=False,
                        select=select,
                        packing=str(raw.get("packing", PER_SERVER)),
                        loc=self.r.loc(path),
                    )
                )
        return tuple(out)


def select_configs_of(
    configs: tuple[Config, ...], select: tuple[Selector, ...]
) -> tuple[Config, ...]:
    return tuple(c for c in configs if matches(c, select))


def check_no_duplicate_paths(models: dict[str, Model]) -> None:
    seen: dict[str, Model] = {}
    for model in models.values():
        if model.path in seen:
            raise CatalogError(
                f"model path '{model.path}' is declared twice (also as '{seen[model.path].name}')",
                model.loc,
            )
        seen[model.path] = model
