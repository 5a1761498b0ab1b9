"""A result record's document (schema `sglang-ci/record/1`, generator/results/schemas), as
TypedDicts: written by the launcher (launch/record_doc.py), read by the store. Each field
admits what the schema admits (null too where this launcher never writes it)."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from generator.core.contract import PointCell

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import ImageBuildEntry

PointStatus = Literal["ok", "failed", "timeout", "server-died", "cancelled"]
CaseStatus = Literal["passed", "failed", "error", "timeout", "cancelled"]


class ImageProvenance(TypedDict):
    """The image asked for and how it was resolved; `build` for a pull request's own."""

    requested: str | None
    tag: str | None
    digest: str | None
    pinned: str | None
    resolution: str | None
    build: NotRequired[ImageBuildEntry]


class GpuProvenance(TypedDict):
    model: str | None
    count: int | None
    vram_gb: float | None


class GithubProvenance(TypedDict):
    repository: str | None
    workflow: str | None
    run_id: str | None
    run_attempt: str | None
    event: str | None
    ref: str | None


class Provenance(TypedDict):
    """Which image, which versions, which GPUs and which run made a record."""

    image: ImageProvenance
    sglang_version: str | None
    sglang_commit: str | None
    atom_version: str | None
    aiter_version: str | None
    rocm_version: str | None
    gpu: GpuProvenance
    runner_name: str | None
    runner_label: str | None
    github: GithubProvenance
    catalog_commit: str | None


class ServerCommand(TypedDict):
    argv: list[str]
    env: dict[str, str]


class Validity(TypedDict):
    valid: bool
    reason: str | None


class Timings(TypedDict):
    """When a point or case ran, and how long it, its server's start and its download took."""

    started_at: str | None
    ended_at: str | None
    wall_time_s: float | None
    server_start_s: float | None
    download_s: float | None
    estimate_minutes: int | None


class ToolRun(TypedDict):
    """The client or evaluator that measured: its name, version and command line."""

    name: str
    version: str | None
    argv: list[str]


class CopiedMetrics(TypedDict):
    """The metrics copied from the client's result line under the same name."""

    request_throughput: float | None
    input_throughput: float | None
    output_throughput: float | None
    mean_ttft_ms: float | None
    median_ttft_ms: float | None
    p99_ttft_ms: float | None
    mean_tpot_ms: float | None
    median_tpot_ms: float | None
    p99_tpot_ms: float | None
    mean_itl_ms: float | None
    median_itl_ms: float | None
    p99_itl_ms: float | None
    mean_e2e_latency_ms: float | None
    median_e2e_latency_ms: float | None
    p99_e2e_latency_ms: float | None


class PointMetrics(CopiedMetrics):
    completed: int | None
    duration_s: float | None
    total_token_throughput: float | None
    output_throughput_per_gpu: float | None
    total_token_throughput_per_gpu: float | None
    interactivity: float | None
    accept_length: float | None
    acceptance_rate: float | None


class CaseMetrics(TypedDict):
    metric: str
    score: float | None
    threshold: float
    passed: bool
    invalid_rate: float | None
    latency_s: float | None
    output_throughput: float | None
    accept_length: float | None
    acceptance_rate: float | None
    min_acceptance_rate: float | None


class RecordPoint(PointCell):
    """A point's cell, as its record names it (`pair`: `<isl>x<osl>`)."""

    pair: str


class RecordFields(TypedDict):
    """What a point's and a case's record share: the server and where it ran."""

    schema: str
    model_path: str
    served_model_path: str | None
    server_mode: str | None
    runner_label: str | None
    server_fingerprint: str | None
    spec: str | None
    draft_tokens: int | None
    gpus: int | None
    error: str | None
    server: ServerCommand
    provenance: Provenance


class PointRecord(RecordFields):
    kind: Literal["point"]
    id: str
    job_id: str
    suite: str | None
    config: str
    display: str | None
    dashboard_model: str | None
    point: RecordPoint
    status: PointStatus
    validity: Validity
    metrics: PointMetrics
    client: ToolRun
    timings: Timings


class CaseRecord(RecordFields):
    kind: Literal["case"]
    id: str
    case: str
    name: str | None
    suite: str | None
    benchmark: str | None
    status: CaseStatus
    validity: Validity
    metrics: CaseMetrics
    evaluator: ToolRun
    timings: Timings


Record = PointRecord | CaseRecord
