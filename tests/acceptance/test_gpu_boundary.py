"""The GPU boundary over the rendered workflows (generator/render/boundary.py), as `make
test` and every render check it: each self-hosted job names the `gpu` environment and is
downstream of a caller check on a GitHub-hosted runner, only environment jobs read their
environment's secret, no secret is passed on (tests/unit/test_render_boundary.py shows each
rule catching its breach)."""

from __future__ import annotations

from pathlib import Path

from generator.catalog.yamlio import load_data
from generator.render.boundary import hosted, is_check, violations
from tests.helpers import ROOT

FLOWS = ROOT / ".github/workflows"


def committed() -> dict[str, str]:
    return {f".github/workflows/{p.name}": p.read_text() for p in sorted(FLOWS.glob("*.yml"))}


def test_the_committed_workflows_keep_the_boundary() -> None:
    assert violations(committed()) == []


def test_the_self_hosted_jobs_are_the_three_gpu_jobs_each_behind_its_check_and_the_build() -> None:
    """What the check looks at, listed: the rule is not vacuous."""
    found = []
    for path, text in committed().items():
        jobs = load_data(text)["jobs"]
        for name, job in jobs.items():
            if "uses" not in job and not hosted(job):
                found.append((Path(path).name, name, job["environment"], job["needs"]))
                if job["environment"] == "gpu":
                    assert is_check(jobs[job["needs"]])
    assert found == [
        ("accuracy-case.yml", "accuracy", "gpu", "check"),
        ("benchmark-job.yml", "benchmark", "gpu", "check"),
        ("confirm-job.yml", "confirm", "gpu", "check"),
        ("pr-gpu.yml", "build", "pr-image", ["select", "approve"]),
    ]
    flows = committed()
    approve = load_data(flows[".github/workflows/pr-gpu.yml"])["jobs"]["approve"]
    assert approve["environment"] == {"name": "gpu-pr"}


def test_each_secret_is_read_by_the_jobs_of_its_environment_only() -> None:
    readers = sorted(
        (Path(path).name, line.strip())
        for path, text in committed().items()
        for line in text.splitlines()
        if "secrets." in line
    )
    assert readers == [
        ("ab-noise.yml", "DEPLOY_KEY: ${{ secrets.HISTORY_DEPLOY_KEY }}"),
        ("accuracy-case.yml", "HF_TOKEN: ${{ secrets.HF_TOKEN }}"),
        ("accuracy-nightly.yml", "DEPLOY_KEY: ${{ secrets.HISTORY_DEPLOY_KEY }}"),
        ("benchmark-job.yml", "HF_TOKEN: ${{ secrets.HF_TOKEN }}"),
        ("benchmark.yml", "DEPLOY_KEY: ${{ secrets.HISTORY_DEPLOY_KEY }}"),
        ("confirm-job.yml", "HF_TOKEN: ${{ secrets.HF_TOKEN }}"),
        ("pr-gpu.yml", "PR_IMAGE_PUSH_TOKEN: ${{ secrets.PR_IMAGE_PUSH_TOKEN }}"),
        ("pr-gpu.yml", "PR_IMAGE_PUSH_USER: ${{ secrets.PR_IMAGE_PUSH_USER }}"),
    ]
