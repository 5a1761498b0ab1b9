"""The GPU boundary over the rendered workflows (generator/render/boundary.py), as `make
test` and every render check it: each self-hosted job names the `gpu` environment and is
downstream of a caller check on a GitHub-hosted runner, only environment jobs read their
environment's secret, no secret is passed on. Each rule is shown to catch its breach."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.catalog.yamlio import load_data
from generator.render.boundary import BoundaryBroken, check, hosted, is_check, violations
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


def breach(workflow: str, old: str, new: str) -> list[str]:
    flows = committed()
    path = f".github/workflows/{workflow}"
    assert old in flows[path], old
    flows[path] = flows[path].replace(old, new, 1)
    return violations(flows)


JOB = ".github/workflows/benchmark-job.yml: job benchmark"


BUILD = ".github/workflows/pr-gpu.yml: job build"


@pytest.mark.parametrize(
    ("workflow", "old", "new", "found"),
    [
        (
            "pr-gpu.yml",
            "    name: Build the PR's image\n    needs: [select, approve]\n",
            "    name: Build the PR's image\n    needs: [select]\n",
            [f"{BUILD} builds on a self-hosted runner with no gpu-pr approval upstream of it"],
        ),
        (
            "pr-gpu.yml",
            "    environment: pr-image\n",
            "    environment: gpu\n",
            [f"{BUILD} runs on a self-hosted runner with no caller check upstream of it",
             f"{BUILD} reads secrets.PR_IMAGE_PUSH_TOKEN outside the pr-image environment",
             f"{BUILD} reads secrets.PR_IMAGE_PUSH_USER outside the pr-image environment"],
        ),
        (
            "pr-gpu.yml",
            "          BUILD: ${{ needs.select.outputs.build }}\n",
            ("          BUILD: ${{ needs.select.outputs.build }}\n"
             "          HF_TOKEN: ${{ secrets.HF_TOKEN }}\n"),
            [f"{BUILD} reads secrets.HF_TOKEN outside the gpu environment"],
        ),
        (
            "benchmark-job.yml",
            "    environment: gpu\n",
            "",
            [f"{JOB} runs on a self-hosted runner outside the gpu environment",
             f"{JOB} reads secrets.HF_TOKEN outside the gpu environment"],
        ),
        (
            "benchmark-job.yml",
            "    environment: gpu\n",
            "    environment: staging\n",
            [f"{JOB} runs on a self-hosted runner outside the gpu environment",
             f"{JOB} reads secrets.HF_TOKEN outside the gpu environment"],
        ),
        (
            "benchmark-job.yml",
            "    needs: check\n",
            "",
            [f"{JOB} runs on a self-hosted runner with no caller check upstream of it"],
        ),
        (
            "benchmark-job.yml",
            "          sglang-ci verify caller ",
            "          echo ",
            [f"{JOB} runs on a self-hosted runner with no caller check upstream of it"],
        ),
        (
            "benchmark-job.yml",
            "    name: Check the caller and the job\n    runs-on: ubuntu-latest\n",
            "    name: Check the caller and the job\n    runs-on: linux-atom-mi35x-8\n",
            [(".github/workflows/benchmark-job.yml: job check runs on a self-hosted runner "
              "outside the gpu environment"),
             (".github/workflows/benchmark-job.yml: job check runs on a self-hosted runner with "
              "no caller check upstream of it"),
             f"{JOB} runs on a self-hosted runner with no caller check upstream of it"],
        ),
        (
            "benchmark-job.yml",
            "permissions: {}\n",
            "    secrets:\n      HF_TOKEN:\n        required: false\n\npermissions: {}\n",
            [".github/workflows/benchmark-job.yml: workflow_call declares secrets ['HF_TOKEN']"],
        ),
        (
            "benchmark.yml",
            "    uses: ./.github/workflows/benchmark-job.yml\n",
            "    uses: ./.github/workflows/benchmark-job.yml\n    secrets: inherit\n",
            [".github/workflows/benchmark.yml: secrets: inherit passes every secret on",
             (".github/workflows/benchmark.yml: job run passes secrets to "
              "./.github/workflows/benchmark-job.yml")],
        ),
        (
            "benchmark.yml",
            "          EVENT: ${{ github.event_name }}\n",
            ("          EVENT: ${{ github.event_name }}\n"
             "          HF_TOKEN: ${{ secrets.HF_TOKEN }}\n"),
            [(".github/workflows/benchmark.yml: job select reads secrets.HF_TOKEN outside the gpu "
              "environment")],
        ),
        (
            "pr-gpu.yml",
            "    uses: ./.github/workflows/benchmark-job.yml\n",
            "    uses: someone/else/.github/workflows/benchmark-job.yml@main\n",
            [(".github/workflows/pr-gpu.yml: job benchmark calls "
              "someone/else/.github/workflows/benchmark-job.yml@main, not a workflow of this "
              "repository")],
        ),
        (
            "pr.yml",
            ("  plan:\n    name: What this change would run on the GPUs\n"
             "    runs-on: ubuntu-latest\n"),
            ("  plan:\n    name: What this change would run on the GPUs\n"
             "    runs-on: linux-atom-mi35x-8\n"),
            [(".github/workflows/pr.yml: job plan runs on a self-hosted runner outside the gpu "
              "environment"),
             (".github/workflows/pr.yml: job plan runs on a self-hosted runner with no caller "
              "check upstream of it")],
        ),
    ],
    ids=[
        "build-without-approval",
        "build-in-the-gpu-environment",
        "build-reads-hf-token",
        "no-environment",
        "another-environment",
        "no-needs",
        "check-without-caller-check",
        "check-on-a-gpu-runner",
        "workflow-call-secret",
        "secrets-inherit",
        "hf-token-in-the-select-job",
        "a-workflow-of-another-repository",
        "a-gpu-job-in-pr-checks",
    ],
)  # fmt: skip
def test_each_breach_is_found(workflow: str, old: str, new: str, found: list[str]) -> None:
    assert breach(workflow, old, new) == found


def test_a_breach_fails_the_render_with_one_line() -> None:
    flows = committed()
    path = ".github/workflows/confirm-job.yml"
    flows[path] = flows[path].replace("    needs: check\n", "", 1)
    with pytest.raises(BoundaryBroken) as refused:
        check(flows)
    assert refused.value.return_code == 1
    assert str(refused.value) == (
        "the GPU boundary is broken: .github/workflows/confirm-job.yml: job confirm runs on a "
        "self-hosted runner with no caller check upstream of it; see docs/security.md"
    )
