"""Runs `scripts/run_in_container.py confirm` against the stand-in docker, server and client:
the images of an A/B are entries of the stand-in docker's image table."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from typing import Any

from tests.launchers.support import REPO, RUN_TIMEOUT_S, STANDIN, Harness, fixture_job, small_points

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

SCRIPT = REPO / "scripts" / "run_in_container.py"
RULES = {"output_throughput_per_gpu": {"higher_is_better": True, "min_change": 0.05}}


def image(name: str, version: str = "0.5.23") -> dict[str, Any]:
    """A side image: `rocm/atom-dev@sha256:<hash of name>`, dated tag `name`."""
    digest = "sha256:" + hashlib.sha256(name.encode()).hexdigest()
    return {
        "image": f"rocm/atom-dev@{digest}",
        "image_requested": "rocm/atom-dev:sglang-latest",
        "image_tag": name,
        "image_digest": digest,
        "run": None,
        "version": version,  # not part of the contract: the stand-in image's SGLang
    }


def confirmation_job(
    a: dict[str, Any],
    b: dict[str, Any],
    *,
    repeats: int = 2,
    concurrencies: tuple[int, ...] = (4,),
    candidates: tuple[dict[str, Any], ...] = (),
    max_bisect_steps: int = 0,
) -> dict[str, Any]:
    """The fixture's Qwen TP4 job (4 GPUs) as an A/B of `a` against `b`."""
    job = small_points(fixture_job("--preset", "all-qwen"), list(concurrencies))

    def side(s: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in s.items() if k != "version"}

    job["confirmation"] = {
        "event": "ev-qwen-tp4-r7",
        "repeats": repeats,
        "level": 0.95,
        "metrics": RULES,
        "a": side(a),
        "b": side(b),
        "candidates": [side(c) for c in candidates],
        "max_bisect_steps": max_bisect_steps,
    }
    return job


def run_confirm(
    h: Harness,
    job: Mapping[str, Any],
    images: list[dict[str, Any]],
    *,
    gpus: int,
    slower: Mapping[str, float] | None = None,
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """Run the A/B on a runner whose allocation lists `gpus` render devices; the stand-in
    server is `slower` percent slower on the images (by digest) named there."""
    scratch = h.root / "runner-temp"
    scratch.mkdir(exist_ok=True)
    allocation = h.root / "gha-render-devices"
    allocation.write_text(
        " ".join(f"--device /dev/dri/renderD{128 + 8 * i}" for i in range(gpus)) + "\n"
    )
    entry = json.loads(json.dumps(job))
    entry["container"]["allocation_file"] = str(allocation)
    entry["container"]["model_cache"] = None
    job_file = scratch / "job.json"
    job_file.write_text(json.dumps(entry), encoding="utf-8")
    inner = {k: v for k, v in h.base_env().items() if k not in ("RESULTS_DIR", "SGLANG_PORT")}
    inner["SGLANG_STANDIN_SLOWER"] = json.dumps(dict(slower or {}))
    table: dict[str, Any] = {"*": {"env": inner}}
    for im in images:
        table[im["image_digest"]] = {"env": {"SGLANG_STANDIN_VERSION": im["version"]}}
    (h.root / "images.json").write_text(json.dumps(table), encoding="utf-8")
    env = {
        **h.base_env(),
        "PATH": f"{STANDIN / 'bin'}:/usr/bin:/bin",
        "DOCKER_STANDIN_IMAGES": str(h.root / "images.json"),
        "DOCKER_STANDIN_RECORD": str(h.root / "docker.jsonl"),
        "DOCKER_STANDIN_STATE": str(h.root / "docker-state"),
        "DOCKER_STANDIN_PYTHON": sys.executable,
        "GITHUB_WORKSPACE": str(REPO),
        "RUNNER_NAME": "mi355-1",
    }
    proc = subprocess.run(
        [sys.executable, "-I", str(SCRIPT), "confirm", str(job_file)],
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S * 3,
        check=False,
    )
    record = h.root / "docker.jsonl"
    calls = (
        [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []
    )
    return proc, calls


def documents(h: Harness, job_id: str) -> list[dict[str, Any]]:
    """The confirmation documents of the job, in the order of their turns."""
    folder = h.results / "confirmation" / job_id
    docs = [json.loads(p.read_text()) for p in sorted(folder.glob("step-*/*.json"))]
    return sorted(docs, key=lambda d: (d["step"], d["order"]))


def summary(h: Harness, job_id: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((h.results / "confirmation" / job_id / "ab.json").read_text())
    return data
