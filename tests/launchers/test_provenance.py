"""Provenance in every record and summary, and the GPU check before the server starts,
with the stand-in amd-smi on PATH."""

from __future__ import annotations

from typing import Any

import pytest

from generator.launch.provenance_probe import ROCM_VERSION_FILE
from tests.launchers.support import (
    AMD_SMI_DIR,
    Harness,
    assert_valid_record,
    fixture_case,
    fixture_job,
    small_points,
)

DIGEST = "sha256:" + "ab" * 32
GITHUB = {
    "GITHUB_REPOSITORY": "ROCm/sglang-ci",
    "GITHUB_WORKFLOW": "benchmark",
    "GITHUB_RUN_ID": "987654321",
    "GITHUB_RUN_ATTEMPT": "2",
    "GITHUB_EVENT_NAME": "schedule",
    "GITHUB_REF": "refs/heads/main",
    "GITHUB_SHA": "1234567890abcdef1234567890abcdef12345678",
    "RUNNER_NAME": "mi355-runner-07",
}


def with_gpus(harness: Harness, **env: str) -> dict[str, str]:
    """The launcher's environment additions that put the stand-in amd-smi on PATH."""
    return {"PATH": f"{AMD_SMI_DIR}:{harness.base_env()['PATH']}", **env}


def pinned(entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` as the select step leaves it after pinning its image to a digest."""
    name = entry["image"].split(":")[0]
    entry.update(
        image=f"{name}@{DIGEST}",
        image_requested="rocm/atom-dev:sglang-latest",
        image_tag="sglang-latest",
        image_digest=DIGEST,
        image_resolution="tag",
    )
    return entry


def rocm_version() -> str | None:
    try:
        return ROCM_VERSION_FILE.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


@pytest.mark.parametrize("kind", ["benchmark", "accuracy"])
def test_every_record_and_summary_carries_the_provenance(harness: Harness, kind: str) -> None:
    if kind == "benchmark":
        entry = pinned(small_points(fixture_job("--preset", "all-qwen"), [1, 2]))
        ids = [point["id"] for point in entry["points"]]
    else:
        entry = pinned(fixture_case("deepseek-r1-fp8-tp4"))
        ids = [entry["id"]]
    version = "0.5.22.dev3+g1a2b3c4d"
    env = with_gpus(harness, **GITHUB, SGLANG_STANDIN_VERSION=version)
    run = harness.run(f"run_{kind}.sh", harness.write_json("entry.json", entry), env)

    assert run.returncode == 0, run.stdout + run.stderr
    expected = {
        "image": {
            "requested": "rocm/atom-dev:sglang-latest",
            "tag": "sglang-latest",
            "digest": DIGEST,
            "pinned": f"rocm/atom-dev@{DIGEST}",
            "resolution": "tag",
        },
        "sglang_version": version,
        "sglang_commit": "1a2b3c4d",
        "atom_version": None,
        "aiter_version": None,
        "rocm_version": rocm_version(),
        "gpu": {"model": "AMD Instinct MI355X", "count": 8, "vram_gb": 288.0},
        "runner_name": "mi355-runner-07",
        "runner_label": entry["runner"],
        "github": {
            "repository": "ROCm/sglang-ci",
            "workflow": "benchmark",
            "run_id": "987654321",
            "run_attempt": "2",
            "event": "schedule",
            "ref": "refs/heads/main",
        },
        "catalog_commit": GITHUB["GITHUB_SHA"],
    }
    for record_id in ids:
        record = harness.result(record_id)
        assert_valid_record(record)
        assert record["provenance"] == expected
    assert "neither amd-smi nor rocm-smi" not in run.stdout
    assert "GPUs: 8 x AMD Instinct MI355X (amd-smi), none in use" in run.stdout
    rocm = "-" if rocm_version() is None else f"`{rocm_version()}`"
    block = (
        f"- **Image** `rocm/atom-dev:sglang-latest`: tag `sglang-latest`, digest `{DIGEST}` (tag)\n"
        f"- **Versions** SGLang `{version}` (commit `1a2b3c4d`), ATOM -, AITER -, ROCm {rocm}\n"
        f"- **GPUs** `8` x `AMD Instinct MI355X`, `288.0` GB each; runner `mi355-runner-07`"
        f" (`{entry['runner']}`)\n"
        f"- **Run** `987654321` attempt `2`, catalog commit `{GITHUB['GITHUB_SHA']}`\n"
    )
    summary = harness.summary_file.read_text(encoding="utf-8")
    assert summary.split("\n", 2)[2].startswith(block)


@pytest.mark.fault
@pytest.mark.parametrize(
    ("env", "reason"),
    [
        (
            {"SGLANG_STANDIN_GPU_COUNT": "2"},
            "the job needs 4 GPUs but amd-smi lists 2 (GPU 0 (0000:05:00.0), GPU 1 (0000:15:00.0))",
        ),
        (
            {"SGLANG_STANDIN_GPU_PROCESSES": "3:4242:python3,5:4343:rccl-tests"},
            (
                "GPUs already in use before the server starts: GPU 3: pid 4242 (python3);"
                " GPU 5: pid 4343 (rccl-tests)"
            ),
        ),
    ],
    ids=["too-few", "foreign-process"],
)
def test_too_few_gpus_or_a_foreign_process_exit_2_before_any_server_start(
    harness: Harness, env: dict[str, str], reason: str
) -> None:
    job = small_points(fixture_job("--preset", "all-qwen"), [1, 2])
    run = harness.run(
        "run_benchmark.sh", harness.write_json("job.json", job), with_gpus(harness, **env)
    )

    assert run.returncode == 2, run.stdout + run.stderr
    assert harness.server_records() == []
    assert harness.client_records() == []
    for point in job["points"]:
        record = harness.result(point["id"])
        assert (record["status"], record["error"], record["validity"]) == (
            "failed",
            f"infrastructure: {reason}",
            {"valid": False, "reason": f"infrastructure error: {reason}"},
        )
        assert_valid_record(record)
    assert f"({'infrastructure: ' + reason})" in run.stdout
