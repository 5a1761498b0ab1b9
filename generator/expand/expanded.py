"""What the expand stage produces: frozen servers, cells, jobs, case runs and selections,
and the `Expanded` catalog that holds them all with an index from every id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.catalog.catalog_types import Case, Catalog, Config, Pair, Preset, Schedule
    from generator.errors import Loc


@dataclass(frozen=True, kw_only=True)
class Server:
    """Exactly what `sglang.launch_server` is started with (besides model, host and port)."""

    model_path: str
    args: tuple[str, ...]
    env: tuple[tuple[str, str], ...]
    runner: str
    mode: str
    model_revision: str | None = None  # the catalog's pinned Hugging Face commit, if any


@dataclass(frozen=True, kw_only=True)
class Cell:
    """One benchmark point of a config: (ISL/OSL, concurrency) in one server mode."""

    id: str
    config: Config
    pair: Pair
    concurrency: int
    random_range_ratio: float
    num_prompts: int
    num_warmups: int
    server: Server
    minutes: float


@dataclass(frozen=True, kw_only=True)
class Job:
    """One server launch on one runner, swept over consecutive cells of one config."""

    id: str
    server: Server
    cells: tuple[Cell, ...]
    startup_minutes: float

    @property
    def config(self) -> Config:
        return self.cells[0].config

    @property
    def minutes(self) -> float:
        """Estimated length: one server start-up and every point."""
        return self.startup_minutes + sum(c.minutes for c in self.cells)


@dataclass(frozen=True, kw_only=True)
class CaseRun:
    """One accuracy case on one image (a case that pins no image runs once)."""

    id: str
    case: Case
    name: str
    image: str
    server: Server  # at the case's first level
    # Its server at each level, where the levels run on different runner labels.
    level_servers: tuple[tuple[str, Server], ...] = ()

    def server_at(self, level: str) -> Server:
        return dict(self.level_servers).get(level, self.server)


@dataclass(frozen=True, kw_only=True)
class Shape:
    """What a set of jobs costs on the declared runner pool (docs/planning.md)."""

    jobs: int
    gpu_hours: float
    wall_hours: float
    longest_job_minutes: float


@dataclass(frozen=True, kw_only=True)
class Run:
    """A selection in one server mode: its cells, its jobs and what they cost, packed as
    the selection asks and one job per cell."""

    mode: str | None  # None: each config's suite's first mode
    cells: tuple[Cell, ...]
    jobs: tuple[Job, ...]
    per_cell_jobs: tuple[Job, ...]
    packed: Shape
    per_cell: Shape


@dataclass(frozen=True, kw_only=True)
class Selection:
    """A cron group or a preset, with the configs it selects and its runs per mode."""

    kind: Literal["schedule", "preset"]
    name: str
    title: str  # a cron group's title; a preset's name
    per_config: bool  # a preset of one config, named by its `preset` field
    aliases: tuple[str, ...]
    cron: str | None  # a cron group's
    suite: str | None  # a preset's
    configs: tuple[Config, ...]
    packing: str
    loc: Loc
    source: Schedule | Preset
    runs: Mapping[str | None, Run]

    @property
    def default_run(self) -> Run:
        return next(iter(self.runs.values()))


# What an id can name, as `sglang-ci explain --kind` spells it.
KINDS = ("config", "job", "cell", "case", "preset", "group")


@dataclass(frozen=True, kw_only=True)
class Target:
    """One thing an id names."""

    kind: str  # one of KINDS
    id: str
    config: Config | None = None
    job: Job | None = None
    cell: Cell | None = None
    case: Case | None = None
    selection: Selection | None = None


@dataclass(frozen=True, kw_only=True)
class Expanded:
    """The catalog with everything derived from it, computed once.

    `cells[(prefix, mode)]` and `jobs[(prefix, mode, packing)]` hold every config in every
    server mode of its suite; `base_servers[prefix]` is a config's server in its suite's
    first mode without per-pair extras (what an accuracy case linked to it compares with).
    """

    catalog: Catalog
    cells: Mapping[tuple[str, str], tuple[Cell, ...]]
    jobs: Mapping[tuple[str, str, str], tuple[Job, ...]]
    base_servers: Mapping[str, Server]
    case_runs: tuple[CaseRun, ...]
    schedules: tuple[Selection, ...]
    presets: tuple[Selection, ...]
    index: Mapping[str, tuple[Target, ...]]
