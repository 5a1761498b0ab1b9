"""The benchmark catalog's runners, fragments, clients, server modes and suites, typed; its
images and configs are built by catalog.image_sections and catalog.config_section."""

from __future__ import annotations

import re
from typing import Any

from generator.catalog.catalog_types import Suite
from generator.catalog.flag_checks import flag_problem
from generator.catalog.flags import merge_flags
from generator.catalog.image_sections import build_image_build, build_image_releases, check_image
from generator.catalog.parallel_layout import MARKER
from generator.catalog.sections import build_estimates, build_models, parse_pair
from generator.catalog.server_types import Client, Runner, Sampling, ServerMode, Variable
from generator.catalog.upstream import SERVER, parsers_known, supported
from generator.core.contract import CLIENT_VARIABLES
from generator.errors import CatalogError, did_you_mean
from generator.imageref.allowed import names_registry, repository
from generator.imageref.reference import ImageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.reader import Reader


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
        for flags in self.arg_fragments.values():
            merge_flags(flags)
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
                check_image(r, str(d["images"]["default"]), mode, ["images", "default"])
        self.suites = {str(k): self._suite(str(k), v) for k, v in d["suites"].items()}
        self.image_releases = tuple(
            build_image_releases(r, self.modes, str(k), v)
            for k, v in (d["images"].get("sglang") or {}).items()
        )
        raw_build = d["images"].get("build")
        self.image_build = (
            None if raw_build is None else build_image_build(r, self.modes, raw_build)
        )

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
        r = self.r
        r.known(str(raw["runner"]), self.runners, "runner", [*path, "runner"])
        r.known(str(raw["sampling"]), self.samplings, "sampling", [*path, "sampling"])
        for i, mode in enumerate(raw["server_modes"]):
            r.known(str(mode), self.modes, "server mode", [*path, "server_modes", i])
        r.known(str(raw["client"]), self.clients, "client", [*path, "client"])
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
