"""Which image, which versions, which GPUs and which run made a result.

Versions are read with the image's own Python (`PYTHON`): the packages' installed
metadata, SGLang's `__version__` when its metadata is missing. A field that cannot be
read is null, never guessed.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from generator.core.logtext import md_code, md_text
from generator.core.record_types import ImageProvenance
from generator.core.versions import version_commit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from generator.core.contract import ServerEntry
    from generator.core.record_types import Provenance
    from generator.launch.gpus import Gpus

PROBE_TIMEOUT_S = 120.0
ROCM_VERSION_FILE = Path("/opt/rocm/.info/version")
# Distribution names tried for each package, in order.
PACKAGES = {
    "sglang": ("sglang",),
    "atom": ("atom", "amd-atom"),
    "aiter": ("amd-aiter", "aiter"),
    "lm_eval": ("lm_eval", "lm-eval"),
}
_PROBE = """
import importlib.metadata as m, json, sys
names = json.loads(sys.argv[1])
out = {}
for key, candidates in names.items():
    out[key] = None
    for name in candidates:
        try:
            out[key] = m.version(name)
            break
        except Exception:
            pass
if out.get("sglang") is None:
    try:
        import sglang
        out["sglang"] = getattr(sglang, "__version__", None)
    except Exception:
        pass
print(json.dumps(out))
"""


def versions(python: str) -> dict[str, str | None]:
    """Installed versions of SGLang, ATOM, AITER and lm-eval, as the image's Python sees."""
    empty: dict[str, str | None] = dict.fromkeys(PACKAGES)
    try:
        done = subprocess.run(
            [python, "-c", _PROBE, json.dumps(PACKAGES)],
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
        )
        data = json.loads(done.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError):
        return empty
    if not isinstance(data, dict):
        return empty
    return {key: (str(data[key]) if data.get(key) else None) for key in PACKAGES}


def _commit(version: str | None, environ: Mapping[str, str]) -> str | None:
    """SGLang's git commit: SGLANG_GIT_COMMIT, else a `+g<hash>` in its version."""
    if environ.get("SGLANG_GIT_COMMIT"):
        return environ["SGLANG_GIT_COMMIT"]
    return version_commit(version)


def _catalog_commit(root: Path, environ: Mapping[str, str]) -> str | None:
    if environ.get("GITHUB_SHA"):
        return environ["GITHUB_SHA"]
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _rocm() -> str | None:
    try:
        return ROCM_VERSION_FILE.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def collect(
    entry: ServerEntry,
    gpus: Gpus,
    found: Mapping[str, str | None],
    environ: Mapping[str, str],
    root: Path,
) -> Provenance:
    """The provenance block of every record of this job or case (record schema 1)."""
    env = environ.get
    image = ImageProvenance(
        requested=entry.get("image_requested") or entry["image"] or None,
        tag=entry.get("image_tag") or None,
        digest=entry.get("image_digest") or None,
        pinned=entry["image"] if "@sha256:" in entry["image"] else None,
        resolution=entry.get("image_resolution") or None,
    )
    build = entry.get("image_build")
    if build:
        image["build"] = build.copy()
    return {
        "image": image,
        "sglang_version": found.get("sglang"),
        "sglang_commit": _commit(found.get("sglang"), environ),
        "atom_version": found.get("atom"),
        "aiter_version": found.get("aiter"),
        "rocm_version": _rocm(),
        "gpu": {"model": gpus.model, "count": gpus.count, "vram_gb": gpus.vram_gb},
        "runner_name": env("RUNNER_NAME") or None,
        "runner_label": entry["runner"],
        "github": {
            "repository": env("GITHUB_REPOSITORY") or None,
            "workflow": env("GITHUB_WORKFLOW") or None,
            "run_id": env("GITHUB_RUN_ID") or None,
            "run_attempt": env("GITHUB_RUN_ATTEMPT") or None,
            "event": env("GITHUB_EVENT_NAME") or None,
            "ref": env("GITHUB_REF") or None,
        },
        "catalog_commit": _catalog_commit(root, environ),
    }


def markdown(provenance: Provenance) -> str:
    """The block every step summary starts with."""
    image = provenance["image"]
    gpu = provenance["gpu"]

    def show(value: object) -> str:
        return "-" if value is None else md_code(value)

    pinned = md_text(image["pinned"]) if image["pinned"] else "not pinned"
    built = image.get("build")
    lines = [
        (
            f"- **Image** {show(image['requested'])}: tag {show(image['tag'])}, "
            f"{'digest ' + show(image['digest']) if image['digest'] else pinned}"
            f" ({md_text(image['resolution']) if image['resolution'] else 'not resolved'})"
            + (
                f", built for PR #{md_text(built['pr'])} from {show(built['head'])} on "
                f"{show(built['base'])}"
                if built
                else ""
            )
        ),
        (
            f"- **Versions** SGLang {show(provenance['sglang_version'])}"
            f" (commit {show(provenance['sglang_commit'])}),"
            f" ATOM {show(provenance['atom_version'])},"
            f" AITER {show(provenance['aiter_version'])}, ROCm {show(provenance['rocm_version'])}"
        ),
        (
            f"- **GPUs** {show(gpu['count'])} x {show(gpu['model'])},"
            f" {show(gpu['vram_gb'])} GB each;"
            f" runner {show(provenance['runner_name'])} ({show(provenance['runner_label'])})"
        ),
        (
            f"- **Run** {show(provenance['github']['run_id'])} attempt "
            f"{show(provenance['github']['run_attempt'])}, catalog commit "
            f"{show(provenance['catalog_commit'])}"
        ),
    ]
    return "\n".join(lines) + "\n\n"
