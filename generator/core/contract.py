"""The JSON contract between the generator and the launcher: one job or case, as TypedDicts."""

from __future__ import annotations

from typing import Literal, TypedDict

# The evaluators a case can name (the catalog's schema lists the same two).
EvaluatorKind = Literal["lm-eval", "sglang-few-shot-gsm8k"]
LM_EVAL: EvaluatorKind = "lm-eval"
FEW_SHOT_GSM8K: EvaluatorKind = "sglang-few-shot-gsm8k"
EVALUATOR_KINDS: tuple[EvaluatorKind, ...] = (LM_EVAL, FEW_SHOT_GSM8K)


# What a client's arguments may name (`{isl}`); the launcher fills them in for each point.
CLIENT_VARIABLES = (
    "host",
    "port",
    "model",
    "isl",
    "osl",
    "ratio",
    "num_prompts",
    "num_warmups",
    "concurrency",
    "output_file",
)


class PointCell(TypedDict):
    """A (ISL/OSL, concurrency) cell: what a job's point and a point's record both name."""

    isl: int
    osl: int
    concurrency: int
    random_range_ratio: float
    num_prompts: int
    num_warmups: int


class PointEntry(PointCell):
    """One benchmark point of a job: a cell of its config."""

    id: str
    estimate_minutes: int


class ClientEntry(TypedDict):
    """The benchmark client as the catalog declares it: `{variable}` placeholders in
    `args` are filled per point by `commands.bench_argv`."""

    name: str
    module: str
    args: list[str]
    env: dict[str, str]


class ContainerEntry(TypedDict):
    """The runner contract of the job's label (docs/runners.md)."""

    model_cache: str | None
    allocation_file: str | None
    options: list[str]


class ImageBuildEntry(TypedDict):
    """A pull request's own image: built for PR `pr` from its `head` commit's `dockerfile`
    on `base` (pinned), by the PR GPU run's builder (generator/images/prbuild.py)."""

    pr: int
    head: str
    base: str
    dockerfile: str


class ImageFields(TypedDict, total=False):
    """Set by the select step when it pins the run's images (docs/images.md), and the
    model's pinned revision when the catalog pins one."""

    image_requested: str
    image_tag: str
    image_digest: str
    image_resolution: str
    image_build: ImageBuildEntry
    model_revision: str


class SpellingFields(TypedDict, total=False):
    """Set where a flag of the server's has another name in some SGLang releases:
    `[flag, name, first release, last release or ""]` (commands.spelled)."""

    server_spellings: list[list[str]]


class CatalogServer(ImageFields, SpellingFields):
    """A server's fields as the catalogs give them (expand/entries.py): all but the id,
    the image and the timeout, which each entry sets in its own place."""

    model_path: str
    runner: str
    server_mode: str
    server_args: list[str]
    env: dict[str, str]
    server_fingerprint: str
    spec: str
    draft_tokens: int | None
    gpus: int
    container: ContainerEntry


class ServerFields(CatalogServer):
    """What every job and case carries about its server."""

    id: str
    image: str
    timeout_minutes: int


class TurnFields(TypedDict, total=False):
    """Set only in a side job of an A/B whose two servers run at once (abjob.py): the
    directory where each point waits for its turn (turns.py)."""

    turns: str


class JobEntry(ServerFields, TurnFields):
    """One benchmark job: one server, swept over its points."""

    suite: str
    config: str
    display: str
    dashboard_model: str
    startup_minutes: int
    estimate_minutes: int
    point_timeout_factor: float  # a point's timeout: its estimate_minutes times this
    client: ClientEntry
    points: list[PointEntry]


class EvaluatorEntry(TypedDict, total=False):
    """How a case is scored; `kind` says which of the other keys are set."""

    kind: EvaluatorKind
    # lm-eval
    task: str
    model: str
    num_fewshot: int
    metric: str
    model_args: dict[str, str | int | float | bool]
    # sglang-few-shot-gsm8k
    num_shots: int
    num_questions: int
    parallel: int
    max_new_tokens: int


class CaseEntry(ServerFields):
    """One accuracy case on one image, at one level."""

    case: str
    name: str
    suite: str
    benchmark: str | None
    level: str
    threshold: float
    min_acceptance_rate: float | None
    eval_timeout_minutes: float
    evaluator: EvaluatorEntry


ServerEntry = JobEntry | CaseEntry
