"""Typed, frozen catalog objects: configs, cases, the selectors of schedules and presets, and
the Catalog. Nothing past the loader sees a raw mapping."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, TypeVar

from generator.catalog.regression import Policy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.catalog.server_types import (
        Client,
        EnvVar,
        Estimates,
        Flag,
        ImageBuild,
        ImageReleases,
        Model,
        Parallel,
        Runner,
        Sampling,
        ServerMode,
    )
    from generator.core.contract import EvaluatorKind
    from generator.errors import Loc

SPEC_NONE = "none"
# Accuracy levels: the nightly workflow runs one, the PR check the other.
Level = Literal["nightly", "pr"]
NIGHTLY: Level = "nightly"
PR: Level = "pr"
LEVELS: tuple[Level, ...] = (NIGHTLY, PR)
# How a config, cron group or preset turns cells into jobs: one server per job (packed), or
# one job per cell (the reference system's shape).
Packing = Literal["per-server", "per-cell"]
PER_SERVER: Packing = "per-server"
PER_CELL: Packing = "per-cell"
PACKINGS: tuple[Packing, ...] = (PER_SERVER, PER_CELL)

T = TypeVar("T", bound=str)


def one_of(value: object, choices: tuple[T, ...]) -> T:
    """`value` as the one of `choices` it equals (the schema allowed no other)."""
    for choice in choices:
        if value == choice:
            return choice
    msg = f"{value!r} is none of {choices}: the schema should have refused it"
    raise ValueError(msg)


@dataclass(frozen=True, kw_only=True)
class Pair:
    isl: int
    osl: int

    def __str__(self) -> str:
        return f"{self.isl}x{self.osl}"


@dataclass(frozen=True, kw_only=True)
class Suite:
    name: str
    key: str
    runner: str
    random_range_ratio: float
    sampling: str
    pairs: tuple[Pair, ...]
    concurrency: tuple[int, ...] | None
    server_modes: tuple[str, ...]
    client: str
    loc: Loc


@dataclass(frozen=True, kw_only=True)
class PairExtras:
    args: tuple[Flag, ...]
    env: tuple[EnvVar, ...]


@dataclass(frozen=True, kw_only=True)
class Config:
    prefix: str
    display: str
    dashboard_model: str | None
    preset: str
    suite: str
    model: Model
    parallel: Parallel
    spec: str
    runner: str
    sampling: Sampling
    args: tuple[Flag, ...]
    env: tuple[EnvVar, ...]
    grid: tuple[tuple[Pair, tuple[int, ...]], ...]
    per_pair: tuple[tuple[Pair, PairExtras], ...]
    fragments: tuple[str, ...]
    waivers: tuple[tuple[str, str], ...]
    startup_minutes: float | None = None
    packing: Packing = PER_SERVER
    loc: Loc

    def extras_for(self, pair: Pair) -> PairExtras | None:
        for p, extras in self.per_pair:
            if p == pair:
                return extras
        return None


@dataclass(frozen=True, kw_only=True)
class Evaluator:
    kind: EvaluatorKind
    settings: tuple[tuple[str, str | int], ...]
    # lm-eval's --model_args besides base_url and model, in order (values as written).
    model_args: tuple[tuple[str, str | int | float | bool], ...] = ()


@dataclass(frozen=True, kw_only=True)
class AccuracySuite:
    name: str
    timeout_minutes: tuple[tuple[str, int], ...]  # per level: the whole job
    eval_timeout_minutes: int  # the evaluation alone
    evaluator: Evaluator


@dataclass(frozen=True, kw_only=True)
class Case:
    id: str
    name: str
    suite: str
    benchmark: str | None
    benchmark_suite: str | None
    model: Model
    parallel: Parallel
    spec: str
    args: tuple[Flag, ...]
    env: tuple[EnvVar, ...]
    unset_env: tuple[str, ...]
    runner: str  # the runner label of its first level
    levels: tuple[Level, ...]
    threshold: float
    images: tuple[tuple[str, str], ...]
    fragments: tuple[str, ...]
    waivers: tuple[tuple[str, str], ...]
    loc: Loc
    min_acceptance_rate: float | None = None
    # A runner label per level, where the levels run on different labels.
    level_runners: tuple[tuple[str, str], ...] = ()

    def runner_for(self, level: str) -> str:
        return dict(self.level_runners).get(level, self.runner)

    @property
    def labels(self) -> tuple[str, ...]:
        """Every runner label the case runs on, in level order."""
        return tuple(dict.fromkeys(self.runner_for(level) for level in self.levels))


@dataclass(frozen=True, kw_only=True)
class Catalog:
    benchmark_file: str
    accuracy_file: str
    runners: tuple[Runner, ...]
    default_image: str
    models: tuple[Model, ...]
    arg_fragments: tuple[tuple[str, tuple[Flag, ...], Loc], ...]
    env_fragments: tuple[tuple[str, tuple[EnvVar, ...], Loc], ...]
    server_modes: tuple[ServerMode, ...]
    suites: tuple[Suite, ...]
    configs: tuple[Config, ...]
    schedules: tuple[Schedule, ...]
    presets: tuple[Preset, ...]
    accuracy_suites: tuple[AccuracySuite, ...]
    accuracy_schedule: tuple[str, str]
    allowed_env_differences: tuple[str, ...]
    allowed_arg_differences: tuple[str, ...]
    cases: tuple[Case, ...]
    estimates: Estimates
    samplings: tuple[Sampling, ...] = field(default=())
    recipes: tuple[tuple[str, tuple[Selector, ...]], ...] = field(default=())
    clients: tuple[Client, ...] = field(default=())
    nightly_window_days: int = 7
    # The SGLang releases of each declared image repository (images.sglang; docs/images.md).
    image_releases: tuple[ImageReleases, ...] = ()
    # How a pull request's image is built (images.build), when the catalog declares it.
    image_build: ImageBuild | None = None
    # How `sglang-ci results compare` calls a regression (docs/results.md).
    regression: Policy = field(default_factory=Policy)

    def client(self, name: str) -> Client:
        return next(c for c in self.clients if c.name == name)

    def suite(self, name: str) -> Suite:
        return next(s for s in self.suites if s.name == name)

    def mode(self, name: str) -> ServerMode:
        return next(m for m in self.server_modes if m.name == name)

    def runner(self, label: str) -> Runner:
        return next(r for r in self.runners if r.label == label)

    def accuracy_suite(self, name: str) -> AccuracySuite:
        return next(s for s in self.accuracy_suites if s.name == name)


@dataclass(frozen=True, kw_only=True)
class Selector:
    """Declared fields to match; each field matches any of its values."""

    fields: tuple[tuple[str, tuple[str, ...]], ...]

    def matches(self, owner: Config | Case) -> bool:
        """Every field the selector names has one of its values on `owner`."""
        return all(field_value(owner, field) in values for field, values in self.fields)


# The fields a selector may name.
SELECTOR_FIELDS = ("suite", "family", "precision", "spec", "model", "prefix")


def field_value(owner: Config | Case, field: str) -> str | None:
    """A selector field of a config or case. A case has a suite and a prefix only through
    the benchmark config it is linked to (`benchmark:`)."""
    if field == "family":
        return owner.model.family
    if field == "precision":
        return owner.model.precision
    if field == "spec":
        return owner.spec
    if field == "model":
        return owner.model.name
    if isinstance(owner, Config):
        return owner.suite if field == "suite" else owner.prefix
    return owner.benchmark_suite if field == "suite" else owner.benchmark


def matches(owner: Config | Case, selectors: tuple[Selector, ...]) -> bool:
    """A list of selectors is their union."""
    return any(sel.matches(owner) for sel in selectors)


@dataclass(frozen=True, kw_only=True)
class Schedule:
    name: str
    title: str
    cron: str
    server_mode: str | None
    select: tuple[Selector, ...]
    packing: Packing = PER_SERVER
    loc: Loc
    select_loc: Loc


@dataclass(frozen=True, kw_only=True)
class Preset:
    suite: str
    name: str
    aliases: tuple[str, ...]
    select: tuple[Selector, ...]
    per_config: bool
    packing: Packing = PER_SERVER
    loc: Loc
    select_loc: Loc
