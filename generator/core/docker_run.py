"""The runner's `docker run` of the launcher in the job's or case's image."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import ServerEntry


CONTAINER_CACHE = "/models"  # where the runner's model cache appears in the container
DOWNLOADS_DIR = "models"  # a read-only cache's downloads, in the job's scratch directory


def container_argv(
    entry: ServerEntry,
    *,
    name: str,
    devices: list[str],
    workspace: str,
    scratch: str,
    passed: list[str],
    program: str,
    entry_file: str,
    read_only_cache: bool = False,
) -> list[str]:
    """`docker run` of the launcher in the entry's image, on the runner: only the runner's
    GPUs, the label's container options, the model cache at /models (read-only for code
    that is not the default branch's: its downloads go to the job's scratch directory),
    this checkout and the runner's scratch directory at their own paths, the environment
    passed by name."""
    container = entry["container"]
    argv = ["docker", "run", "--rm", "--init", f"--name={name}", "--device=/dev/kfd", *devices]
    argv += container["options"]
    if container["model_cache"]:
        mode = ":ro" if read_only_cache else ""
        argv += [f"--volume={container['model_cache']}:{CONTAINER_CACHE}{mode}"]
        argv += [f"--env=MODEL_CACHE={CONTAINER_CACHE}"]
        if read_only_cache:
            argv += [f"--env=MODEL_DOWNLOADS={scratch}/{DOWNLOADS_DIR}"]
    argv += [f"--volume={workspace}:{workspace}", f"--workdir={workspace}"]
    argv += [f"--volume={scratch}:{scratch}"]
    argv += [f"--env={variable}" for variable in passed]
    return [*argv, entry["image"], "bash", program, entry_file]
