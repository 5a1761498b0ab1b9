"""The typed server pieces of a catalog: flags, env, runners, models, estimates, layouts,
server modes, image declarations and the benchmark client."""

from __future__ import annotations

from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.errors import Loc


@dataclass(frozen=True, kw_only=True)
class Flag:
    """One server flag: `--name` and its values (none for a bare switch)."""

    name: str
    values: tuple[str, ...]
    loc: Loc

    def tokens(self) -> list[str]:
        return [self.name, *self.values]


@dataclass(frozen=True, kw_only=True)
class EnvVar:
    name: str
    value: str
    loc: Loc


@dataclass(frozen=True, kw_only=True)
class Runner:
    """What the machines carrying a runner label provide (docs/runners.md)."""

    label: str
    gpus: int
    count: int
    loc: Loc
    model_cache: str | None = None  # host directory of model weights, mounted at /models
    allocation_file: str | None = None  # the runner's GPUs, as docker --device flags; None: all
    container_options: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Model:
    name: str
    path: str
    family: str
    precision: str
    params_b: float | None
    startup_minutes: float | None
    loc: Loc
    # The longest context its config allows; None: not declared (docs/lint.md, L804).
    max_context_length: int | None = None
    # A Hugging Face commit the model is pinned to: what `hf download` and the server get.
    revision: str | None = None


@dataclass(frozen=True, kw_only=True)
class StartupRule:
    """Server start-up minutes for models of up to `up_to_params_b` billion parameters
    (None: any size, and models whose size is not declared)."""

    up_to_params_b: float | None
    minutes: float


@dataclass(frozen=True, kw_only=True)
class PointModel:
    """Coefficients of the per-point estimate (docs/planning.md)."""

    overhead_minutes: float
    prefill_tokens_per_gpu_second: float
    decode_step_ms: float
    decode_step_ms_per_request: float


@dataclass(frozen=True, kw_only=True)
class Estimates:
    max_job_minutes: float
    job_timeout_minutes: int
    point_timeout_factor: float
    startup: tuple[StartupRule, ...]
    point: PointModel
    loc: Loc


@dataclass(frozen=True, kw_only=True)
class Parallel:
    """A server's layout (`parallel:`): the one source of its TP, DP, EP and DP-attention
    flags (generator/catalog/parallel_layout.py)."""

    tp: int
    dp: int = 1
    ep: int = 1
    dp_attention: bool = True  # with dp > 1: the DP ranks inside the TP ones

    @property
    def attention_dp(self) -> bool:
        """Whether SGLang runs DP attention (it turns it off when dp is 1)."""
        return self.dp > 1 and self.dp_attention

    @property
    def gpus(self) -> int:
        """GPUs the server occupies: DP attention places the DP ranks inside the TP ones;
        plain DP runs dp replicas of tp GPUs each."""
        return self.tp if self.attention_dp else self.tp * self.dp


@dataclass(frozen=True, kw_only=True)
class Sampling:
    name: str
    prompts_per_concurrency: int
    warmups_per_concurrency: int


@dataclass(frozen=True, kw_only=True)
class Variable:
    name: str
    flag: str
    default: str


@dataclass(frozen=True, kw_only=True)
class ServerMode:
    """A declared overlay put in front of a config's arguments."""

    name: str
    description: str
    image_pattern: str | None
    precedence: str | None  # "mode", "config", or None (a disagreement is an error)
    variables: tuple[Variable, ...]
    args: tuple[Flag, ...]
    env: tuple[EnvVar, ...]
    spec_env: tuple[EnvVar, ...]
    loc: Loc
    # The image repositories (with their registries) this mode may run (docs/images.md).
    image_repositories: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ImageReleases:
    """The SGLang releases an image repository's images carry, and how a run knows the one
    an image it pinned carries: from its tag (`tag`, a pattern whose `{version}` is the
    release), from a label of its image config (`label`, read from the registry), or as
    the catalog states it (`release`); none of them: any of `releases`."""

    repository: str  # with its registry, as a server mode's image_repositories writes it
    releases: tuple[str, ...]  # oldest first; supported releases (with a flag table)
    tag: str | None = None
    label: str | None = None
    release: str | None = None
    loc: Loc | None = None


@dataclass(frozen=True, kw_only=True)
class ImageBuild:
    """How a pull request's GPU run builds the image its cases run on (`images.build`;
    docs/images.md): the PR head's `dockerfile` over `context`, on `base` (pinned by
    digest when the run is selected), with `args` as build arguments, on a self-hosted
    builder carrying `runner`, pushed to `repository`, which no server mode lists, so its
    images never reach the history. A change to any of `paths` (the Dockerfile is always
    one) builds it; the entries of `server_mode` whose image is of the base's repository
    run on it."""

    runner: str
    repository: str  # with its registry
    base: str
    server_mode: str
    dockerfile: str
    context: str
    paths: tuple[str, ...]
    args: tuple[tuple[str, str], ...]
    timeout_minutes: int
    loc: Loc


@dataclass(frozen=True, kw_only=True)
class Client:
    """The benchmark client: a Python module run with the server's Python, every argument
    declared (`{variable}` placeholders are filled per point)."""

    name: str
    description: str
    module: str
    args: tuple[Flag, ...]
    env: tuple[EnvVar, ...]
    loc: Loc
