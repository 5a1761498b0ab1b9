"""Histories of the fixture's OOB Qwen TP4 server for the confirmation tests: the records
results_gen writes, carrying that job's config, fingerprint, runner label and image, one
image digest per run as the select step pins it."""

from __future__ import annotations

import hashlib
import random
from typing import Any

from generator.core import ab_order
from tests import results_gen as gen
from tests.launchers.support import fixture_job

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

FAMILY = "rocm/atom-dev"
REQUESTED = f"{FAMILY}:sglang-latest"


def digest(name: str) -> str:
    return "sha256:" + hashlib.sha256(name.encode()).hexdigest()


def qwen_job(concurrencies: tuple[int, ...] = (4, 8)) -> dict[str, Any]:
    """The fixture's Qwen TP4 job with these points, its image pinned as the select step
    pins it (to `digest("current")`)."""
    job = fixture_job("--preset", "all-qwen")
    job["points"] = [
        p for p in job["points"] if p["isl"] == 1024 and p["concurrency"] in concurrencies
    ]
    return pin(job, "current")


def pin(job: dict[str, Any], image: str) -> dict[str, Any]:
    d = digest(image)
    job.update(
        image=f"{FAMILY}@{d}",
        image_requested=REQUESTED,
        image_tag="sglang-latest",
        image_digest=d,
        image_resolution="tag",
    )
    return job


def run_records(
    job: dict[str, Any],
    day: int,
    image: str,
    *,
    throughput: float = 1.0,
    noise: float = 0.01,
    version: str = "0.5.23",
    seed: int = 0,
) -> tuple[gen.Run, list[dict[str, Any]]]:
    """One night's records of `job` on `image` (a name; its digest is digest(image))."""
    run = gen.Run(day=day, image=REQUESTED, digest=digest(image))
    rng = random.Random(seed * 1000 + day)
    out = []
    for p in job["points"]:
        point = gen.Point(
            config=job["config"], isl=p["isl"], osl=p["osl"], concurrency=p["concurrency"], gpus=4
        )
        rec = gen.point_record(run, point, gen.Shape(throughput=throughput, noise=noise), rng)
        rec.update(
            id=p["id"],
            job_id=job["id"],
            server_fingerprint=job["server_fingerprint"],
            runner_label=job["runner"],
        )
        rec["provenance"]["runner_label"] = job["runner"]
        rec["provenance"]["sglang_version"] = version
        out.append(rec)
    return run, out


def write(parent: Path, job: dict[str, Any], day: int, image: str, **shape: Any) -> Path:
    run, records = run_records(job, day, image, **shape)
    return gen.write_run(parent, run, records)


def ab_entry(
    job: dict[str, Any], event: str, a: dict[str, Any], b: dict[str, Any]
) -> dict[str, Any]:
    """`job` as the confirmation matrix's entry of an A/B of image `a` against `b` (each
    an abjob.SideImage) for `event`, three repeats, no nightly between them."""
    return {
        **job,
        "confirmation": {
            "event": event,
            "repeats": 3,
            "level": 0.95,
            "metrics": {
                "output_throughput_per_gpu": {"higher_is_better": True, "min_change": 0.05}
            },
            "a": a,
            "b": b,
            "candidates": [],
            "max_bisect_steps": 0,
        },
    }


def ab_documents(
    entry: dict[str, Any], record: Callable[[str, dict[str, Any], int], dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """The documents the runner leaves for the first step of the A/B `entry` (path below
    the run's confirmation folder -> document), both servers at once, the turns in the
    order ab_order.turns gives; `record(side, point, repeat)` is the launcher's record of a turn."""
    conf = entry["confirmation"]
    points = {p["id"]: p for p in entry["points"]}
    out = {}
    for index, turn in enumerate(
        ab_order.turns(conf["repeats"], list(points), ab_order.PARALLEL), 1
    ):
        path = (
            f"confirmation-{entry['id']}/{entry['id']}/step-0/{turn.side.lower()}-{turn.tag}.json"
        )
        out[path] = {
            "schema": "sglang-ci/confirmation/1",
            "event": conf["event"],
            "job_id": entry["id"],
            "step": 0,
            "order": index,
            "mode": ab_order.PARALLEL,
            "side": turn.side,
            "repeat": turn.repeat,
            "point": turn.point,
            "images": {"A": conf["a"], "B": conf["b"]},
            "record": record(turn.side, points[turn.point], turn.repeat),
        }
    return out
