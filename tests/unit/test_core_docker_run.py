"""generator.core.docker_run: the runner's `docker run` of the launcher in the entry's
image (GPUs, the label's options, the model cache, the checkout, the scratch directory)."""

from __future__ import annotations

from typing import cast

from generator.core.docker_run import container_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import ServerEntry


def entry(cache: str | None) -> ServerEntry:
    container = {"options": ["--ipc=host", "--group-add=video"], "model_cache": cache}
    return cast("ServerEntry", {"image": "rocm/x@sha256:1", "container": container})


def argv(cache: str | None, *, read_only_cache: bool = False) -> list[str]:
    return container_argv(
        entry(cache),
        name="sglang-ci-r1",
        devices=["--device=/dev/dri/renderD128"],
        workspace="/ws",
        scratch="/tmp/job",
        passed=["HF_TOKEN", "RUNNER_TEMP"],
        program="scripts/run_benchmark.sh",
        entry_file="/tmp/job/job.json",
        read_only_cache=read_only_cache,
    )


HEAD = [
    "docker",
    "run",
    "--rm",
    "--init",
    "--name=sglang-ci-r1",
    "--device=/dev/kfd",
    "--device=/dev/dri/renderD128",
    "--ipc=host",
    "--group-add=video",
]
TAIL = [
    "--volume=/ws:/ws",
    "--workdir=/ws",
    "--volume=/tmp/job:/tmp/job",
    "--env=HF_TOKEN",
    "--env=RUNNER_TEMP",
    "rocm/x@sha256:1",
    "bash",
    "scripts/run_benchmark.sh",
    "/tmp/job/job.json",
]


def test_the_cache_is_mounted_at_models_and_named_to_the_launcher() -> None:
    assert argv("/share/models") == [
        *HEAD,
        "--volume=/share/models:/models",
        "--env=MODEL_CACHE=/models",
        *TAIL,
    ]


def test_a_read_only_cache_sends_downloads_to_the_scratch_directory() -> None:
    assert argv("/share/models", read_only_cache=True) == [
        *HEAD,
        "--volume=/share/models:/models:ro",
        "--env=MODEL_CACHE=/models",
        "--env=MODEL_DOWNLOADS=/tmp/job/models",
        *TAIL,
    ]


def test_without_a_cache_nothing_is_mounted_for_models() -> None:
    assert argv(None) == [*HEAD, *TAIL]
    assert argv(None, read_only_cache=True) == [*HEAD, *TAIL]
