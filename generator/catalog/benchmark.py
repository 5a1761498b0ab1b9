"""Build the typed benchmark catalog from a validated document."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from generator.catalog.flags import (
    canonical,
    merge_env,
    merge_flags,
    override_env,
    override_flags,
)
from generator.catalog.layout import MARKER
from generator.catalog.model import (
    CLIENT_VARIABLES,
    PACKINGS,
    PER_SERVER,
    Client,
    Config,
    EnvVar,
    Flag,
    ImageBuild,
    ImageReleases,
    Pair,
    PairExtras,
    Runner,
    Sampling,
    ServerMode,
    Suite,
    Variable,
    one_of,
)
from generator.catalog.releases import check_pattern
from generator.catalog.sections import (
    build_estimates,
    build_models,
    build_parallel,
    number,
    parse_pair,
)
from generator.catalog.upstream import (
    SERVER,
    SGLANG,
    flag_problem,
    index,
    parsers_known,
    release_at,
    supported,
)
from generator.errors import CatalogError, did_you_mean
from generator.imageref.allowed import check_allowed, names_registry, repository
from generator.imageref.reference import ImageError, parse_reference

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping

    from generator.catalog.reader import Reader

# A config's cells in one server mode: its own preset is one matrix of at most 256 jobs
# (GitHub's limit) of at most 256 points each (the launcher's), so more could never run.
MAX_CONFIG_CELLS = 256 * 256
# Every config's cells in every server mode of its suite: what expand builds (each twice,
# packed and one job per cell). The largest catalog measured (docs/performance.md) has
# 100,000; the bound is checked on the grid sizes, before any cell exists.
MAX_CATALOG_CELLS = 250_000

T = TypeVar("T")
R = TypeVar("R")


class BenchmarkBuilder:
    def __init__(self, r: Reader) -> None:
        self.r = r
        d = r.doc
        self.runners = {str(k): self._runner(str(k), v) for k, v in d["runners"].items()}
        self.models = build_models(r, d["models"])
        self.estimates = build_estimates(r, d["estimates"])
        if MARKER in d["args"]:
            msg = f"a fragment may not be named '{MARKER}': in an args list it places the layout"
            raise r.fail(msg, ["args", MARKER])
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
        self.clients = {str(k): self._client(str(k), v) for k, v in d["clients"].items()}
        self.modes = {str(k): self._mode(str(k), v) for k, v in d["server_modes"].items()}
        for mode in self.modes.values():
            if not mode.image_pattern:  # the mode runs the default image
                self.check_image(str(d["images"]["default"]), mode, ["images", "default"])
        self.suites = {str(k): self._suite(str(k), v) for k, v in d["suites"].items()}
        self.image_releases = tuple(
            self._image_releases(str(k), v) for k, v in (d["images"].get("sglang") or {}).items()
        )
        raw_build = d["images"].get("build")
        self.image_build = None if raw_build is None else self._image_build(raw_build)

    def _image_build(self, raw: Mapping[str, Any]) -> ImageBuild:
        """The PR image's build: a base of its server mode's repositories, a repository of
        its own that no server mode runs, paths inside the repository."""
        path: list[str | int] = ["images", "build"]
        name = self._check(
            str(raw["server_mode"]), self.modes, "server mode", [*path, "server_mode"]
        )
        mode = self.modes[name]
        base = str(raw["base"])
        try:
            parse_reference(base)
        except ImageError as e:
            raise self.r.fail(e.message, [*path, "base"]) from e
        self.check_image(base, mode, [*path, "base"])
        target = str(raw["repository"])
        if not names_registry(target):
            msg = f"repository '{target}' must name its registry (ghcr.io/owner/name)"
            raise self.r.fail(msg, [*path, "repository"])
        runs = sorted({r for m in self.modes.values() for r in m.image_repositories})
        if repository(target) in {repository(r) for r in runs}:
            msg = (
                f"repository '{target}' is one a server mode runs: pull requests' images "
                "need a repository of their own, whose images never reach the history"
            )
            raise self.r.fail(msg, [*path, "repository"])
        where = {
            "dockerfile": [str(raw["dockerfile"])],
            "context": [str(raw.get("context", "."))],
            "paths": [str(p) for p in raw.get("paths") or ()],
        }
        for key, values in where.items():
            for i, value in enumerate(values):
                if ".." in value.split("/"):
                    msg = f"'{value}' leaves the repository: name a path inside it"
                    raise self.r.fail(msg, [*path, key, i] if key == "paths" else [*path, key])
        return ImageBuild(
            runner=str(raw["runner"]),
            repository=target,
            base=base,
            server_mode=mode.name,
            dockerfile=where["dockerfile"][0],
            context=where["context"][0],
            paths=tuple(dict.fromkeys([where["dockerfile"][0], *where["paths"]])),
            args=tuple((str(k), str(v)) for k, v in (raw.get("args") or {}).items()),
            timeout_minutes=int(raw.get("timeout_minutes", 120)),
            loc=self.r.loc(path),
        )

    def _image_releases(self, name: str, raw: Mapping[str, Any]) -> ImageReleases:
        """One repository's SGLang releases: a repository some server mode runs; releases
        that have a flag table; a tag pattern with {version} once."""
        path: list[str | int] = ["images", "sglang", name]
        runs = {repository(r) for m in self.modes.values() for r in m.image_repositories}
        if not names_registry(name) or repository(name) not in runs:
            known = sorted({r for m in self.modes.values() for r in m.image_repositories})
            msg = (
                f"image repository '{name}' is not one a server mode runs (with its "
                f"registry){did_you_mean(name, known)}"
            )
            raise self.r.fail(msg, path)
        releases = index(SGLANG).releases

        def supported_release(value: object, where: list[str | int]) -> int:
            found = release_at(str(value))
            if found is None:
                msg = (
                    f"SGLang {value} has no flag table ({supported()}; make flag-tables "
                    f"adds newer releases){did_you_mean(str(value), releases)}"
                )
                raise self.r.fail(msg, where)
            return found

        tag = raw.get("tag")
        if tag is not None:
            problem = check_pattern(str(tag))
            if problem:
                raise self.r.fail(problem, [*path, "tag"])
        first, last = 0, len(releases) - 1
        if "release" in raw:
            first = last = supported_release(raw["release"], [*path, "release"])
        span_raw = raw.get("releases") or {}
        if "from" in span_raw:
            first = supported_release(span_raw["from"], [*path, "releases", "from"])
        if "to" in span_raw:
            last = supported_release(span_raw["to"], [*path, "releases", "to"])
        if last < first:
            msg = f"releases run from {releases[first]} to an older {releases[last]}"
            raise self.r.fail(msg, [*path, "releases"])
        return ImageReleases(
            repository=name,
            releases=releases[first : last + 1],
            tag=None if tag is None else str(tag),
            label=None if raw.get("label") is None else str(raw["label"]),
            release=str(raw["release"]) if "release" in raw else None,
            loc=self.r.loc(path),
        )

    def check_image(self, image: str, mode: ServerMode, path: list[str | int]) -> None:
        """Refuse, at `path`, an image outside the repositories `mode` declares."""
        try:
            check_allowed(image, mode.name, mode.image_repositories)
        except ImageError as e:
            raise self.r.fail(e.message, path) from e

    def _check(self, value: str, known: Collection[str], what: str, path: list[str | int]) -> str:
        if value not in known:
            msg = f"unknown {what} '{value}'{did_you_mean(value, known)}"
            raise self.r.fail(msg, path)
        return value

    def _runner(self, label: str, raw: Mapping[str, Any]) -> Runner:
        allocation = raw.get("gpu_allocation")
        return Runner(
            label=label,
            gpus=int(raw["gpus"]),
            count=int(raw.get("count", 1)),
            model_cache=None if raw.get("model_cache") is None else str(raw["model_cache"]),
            allocation_file=None if allocation in (None, "whole-machine") else str(allocation),
            container_options=tuple(str(o) for o in raw.get("container_options") or ()),
            loc=self.r.loc(["runners", label]),
        )

    def _client(self, name: str, raw: Mapping[str, Any]) -> Client:
        path: list[str | int] = ["clients", name]
        module = str(raw["module"])
        flags = merge_flags(
            self.r.flags(raw["args"], [*path, "args"], parser=self._client_parser(module, path))
        )
        for flag in flags:
            for value in flag.values:
                for variable in re.findall(r"\{([^{}]*)\}", value):
                    if variable not in CLIENT_VARIABLES:
                        hint = did_you_mean(variable, CLIENT_VARIABLES)
                        msg = (
                            f"{flag.name}: unknown variable '{{{variable}}}'{hint}; a client "
                            f"may use {', '.join('{' + v + '}' for v in CLIENT_VARIABLES)}"
                        )
                        raise CatalogError(msg, flag.loc)
        return Client(
            name=name,
            description=str(raw["description"]),
            module=str(raw["module"]),
            args=flags,
            env=self.r.env(raw.get("env") or {}, [*path, "env"]),
            loc=self.r.loc(path),
        )

    def _client_parser(self, module: str, path: list[str | int]) -> str | None:
        """The flag table a client module's arguments are checked against: SGLang's own
        modules have one; a module of SGLang's that none has is refused; any other module
        is the catalog's to vouch for."""
        known = [p for p in parsers_known() if p != SERVER]
        if module in known:
            return module
        if module.split(".", maxsplit=1)[0] == "sglang":
            msg = (
                f"client module '{module}' is not one {supported()} runs as a benchmark"
                f"{did_you_mean(module, known)}"
            )
            raise self.r.fail(msg, [*path, "module"])
        return None

    def _mode(self, name: str, raw: Mapping[str, Any]) -> ServerMode:
        path: list[str | int] = ["server_modes", name]
        variables = []
        for k, v in (raw.get("variables") or {}).items():
            flag = str(v["flag"])
            problem = flag_problem(SERVER, flag, 1, server=True)
            if problem:
                raise self.r.fail(problem, [*path, "variables", k, "flag"])
            variables.append(Variable(name=str(k), flag=flag, default=str(v["default"])))
        return ServerMode(
            name=name,
            description=str(raw["description"]),
            image_pattern=raw.get("image_pattern"),
            precedence=raw.get("precedence"),
            variables=tuple(variables),
            args=merge_flags(self.r.flags(raw.get("args") or {}, [*path, "args"])),
            env=self.r.env(raw.get("env") or {}, [*path, "env"]),
            spec_env=self.r.env(raw.get("spec_env") or {}, [*path, "spec_env"]),
            loc=self.r.loc(path),
            image_repositories=self._repositories(raw.get("image_repositories") or [], path),
        )

    def _repositories(self, raw: list[Any], path: list[str | int]) -> tuple[str, ...]:
        """A mode's image repositories, each written with its registry."""
        for i, text in enumerate(raw):
            if not names_registry(str(text)):
                msg = (
                    f"image repository '{text}' names no registry: write it with its "
                    f"registry, e.g. docker.io/{text}"
                )
                raise self.r.fail(msg, [*path, "image_repositories", i])
            try:
                repository(str(text))
            except ImageError as e:
                raise self.r.fail(e.message, [*path, "image_repositories", i]) from e
        return tuple(str(t) for t in raw)

    def _suite(self, name: str, raw: Mapping[str, Any]) -> Suite:
        path: list[str | int] = ["suites", name]
        self._check(str(raw["runner"]), self.runners, "runner", [*path, "runner"])
        self._check(str(raw["sampling"]), self.samplings, "sampling", [*path, "sampling"])
        for i, mode in enumerate(raw["server_modes"]):
            self._check(str(mode), self.modes, "server mode", [*path, "server_modes", i])
        self._check(str(raw["client"]), self.clients, "client", [*path, "client"])
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
            client=str(raw["client"]),
            loc=self.r.loc(path),
        )

    def config(self, i: int, raw: Mapping[str, Any]) -> Config:
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
        parallel = build_parallel(raw["parallel"])
        flags = self._at(
            merge_flags,
            r.server_args(raw["args"], path, self.arg_fragments, used, parallel),
            [*path, "args"],
        )
        env = self._at(
            merge_env,
            r.items(raw.get("env") or [], [*path, "env"], self.env_fragments, "env", used),
            [*path, "env"],
        )
        flags, env = self._override(
            raw.get("override") or {}, flags, env, [*path, "override"], used
        )
        grid = self._grid(suite, raw.get("grid"), [*path, "grid"])
        cells = sum(len(concurrencies) for _, concurrencies in grid)
        if cells > MAX_CONFIG_CELLS:
            where = [*path, "grid"] if "grid" in raw else path
            msg = (
                f"config '{raw['prefix']}' has {cells:,} cells ({len(grid):,} pairs); a config "
                f"runs at most {MAX_CONFIG_CELLS:,} (its preset: 256 jobs of 256 points)"
            )
            raise r.fail(msg, where)
        per_pair = []
        for pair_text, extras in (raw.get("per_pair") or {}).items():
            pair = parse_pair(str(pair_text))
            pp: list[str | int] = [*path, "per_pair", pair_text]
            if pair not in [p for p, _ in grid]:
                msg = f"per_pair {pair} is not a pair this config runs"
                raise r.fail(msg, pp)
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
            parallel=parallel,
            spec=str(raw.get("spec", "none")),
            runner=runner,
            sampling=self.samplings[sampling],
            args=flags,
            env=env,
            grid=grid,
            per_pair=tuple(per_pair),
            fragments=tuple(used),
            waivers=tuple((str(k), str(v)) for k, v in (raw.get("waive") or {}).items()),
            startup_minutes=number(raw.get("startup_minutes")),
            packing=one_of(raw.get("packing", PER_SERVER), PACKINGS),
            loc=r.loc(path),
        )

    def _override(
        self,
        raw: Mapping[str, Any],
        flags: tuple[Flag, ...],
        env: tuple[EnvVar, ...],
        path: list[str | int],
        used: list[str],
    ) -> tuple[tuple[Flag, ...], tuple[EnvVar, ...]]:
        """A config's `override`: values that replace, in place and for every pair, ones
        its args and env set (per_pair replaces them for one pair)."""
        r = self.r
        new_flags = merge_flags(
            r.items(raw.get("args") or [], [*path, "args"], self.arg_fragments, "args", used)
        )
        new_env = merge_env(
            r.items(raw.get("env") or [], [*path, "env"], self.env_fragments, "env", used)
        )
        for what, base, items in (("args", flags, new_flags), ("env", env, new_env)):
            names = {canonical(b.name) for b in base}
            for item in items:
                if canonical(item.name) not in names:
                    msg = (
                        f"override: {item.name} is not set by the config's {what}, so there "
                        f"is nothing to replace: write it in {what}"
                    )
                    raise CatalogError(msg, item.loc)
        return override_flags(flags, new_flags), override_env(env, new_env)

    def _at(self, merge: Callable[[list[T]], R], items: list[T], path: list[str | int]) -> R:
        """Merge fragments; a conflict is reported at the list that combined them."""
        try:
            return merge(items)
        except CatalogError as e:
            raise self.r.fail(e.message, path) from e

    def _grid(
        self, suite: Suite, raw: Mapping[str, Any] | None, path: list[str | int]
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
                msg = f"pair {pair} is not one of suite {suite.name}'s pairs ({shown})"
                raise self.r.fail(msg, [*path, pair_text])
            out.append((pair, tuple(sorted(int(c) for c in conc))))
        order = {p: n for n, p in enumerate(suite.pairs)}
        return tuple(sorted(out, key=lambda item: order[item[0]]))

    def configs(self) -> tuple[Config, ...]:
        seen: dict[str, int] = {}
        out = []
        total = 0
        for i, raw in enumerate(self.r.doc["configs"]):
            config = self.config(i, raw)
            modes = len(self.suites[config.suite].server_modes)
            total += modes * sum(len(concurrencies) for _, concurrencies in config.grid)
            if total > MAX_CATALOG_CELLS:
                msg = (
                    f"the configs up to '{config.prefix}' make {total:,} cells over their server "
                    f"modes; a catalog makes at most {MAX_CATALOG_CELLS:,}: shrink grids or "
                    "split the catalog"
                )
                raise self.r.fail(msg, ["configs", i])
            if config.prefix in seen:
                msg = f"duplicate prefix '{config.prefix}' (first at line {seen[config.prefix]})"
                raise self.r.fail(msg, ["configs", i, "prefix"])
            seen[config.prefix] = config.loc.line
            out.append(config)
        return tuple(out)
