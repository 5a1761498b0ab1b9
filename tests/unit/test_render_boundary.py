"""`generator.render.boundary`: the GPU boundary over rendered workflows: self-hosted jobs in
their environment behind a caller check (or an approval), secrets read in their environment
only and never passed on; each rule catching its breach of the committed workflows."""

from __future__ import annotations

import pytest

from generator.render.boundary import (
    BoundaryBroken,
    check,
    environment,
    hosted,
    is_check,
    upstream,
    violations,
)
from tests.helpers import ROOT

FLOWS = ROOT / ".github/workflows"


def committed() -> dict[str, str]:
    return {f".github/workflows/{p.name}": p.read_text() for p in sorted(FLOWS.glob("*.yml"))}


@pytest.mark.parametrize(
    ("runs_on", "expected"),
    [
        ("ubuntu-latest", True),
        ("ubuntu-24.04", True),
        ("macos-14", True),
        ("windows-2022", True),
        ("linux-atom-mi35x-8", False),
        ("${{ inputs.runner }}", False),
        (["ubuntu-latest"], False),
        (None, False),
    ],
)
def test_a_github_hosted_runner_is_named_literally(runs_on: object, expected: bool) -> None:
    assert hosted({"runs-on": runs_on}) is expected


def test_a_job_s_environment_is_its_name_in_either_spelling() -> None:
    assert environment({"environment": "gpu"}) == "gpu"
    assert environment({"environment": {"name": "gpu-pr", "url": "x"}}) == "gpu-pr"
    assert environment({"environment": {"url": "x"}}) is None
    assert environment({}) is None


def _check_job(*runs: str, runs_on: str = "ubuntu-latest") -> dict[str, object]:
    return {"runs-on": runs_on, "steps": [{"run": r} for r in runs]}


def test_a_caller_check_verifies_the_caller_then_the_entry_on_a_hosted_runner() -> None:
    caller, entry = "sglang-ci verify caller --x", "sglang-ci verify job --y"
    assert is_check(_check_job(caller, entry))
    assert is_check(_check_job(f"{caller}\n{entry.replace('job', 'case')}"))
    assert not is_check(_check_job(entry, caller))  # the entry before the caller
    assert not is_check(_check_job(caller))
    assert not is_check(_check_job(caller, entry, runs_on="linux-atom-mi35x-8"))
    assert not is_check(_check_job(caller, entry), kinds=("case",))
    assert not is_check({"runs-on": "ubuntu-latest"})


def test_upstream_is_every_job_needed_directly_or_not() -> None:
    jobs = {
        "a": {},
        "b": {"needs": "a"},
        "c": {"needs": ["b", "x"]},
        "d": {"needs": ["c", "a"]},
    }
    assert upstream(jobs, "d") == {"a", "b", "c", "x"}
    assert upstream(jobs, "a") == set()
    assert upstream(jobs, "missing") == set()


def test_documents_already_parsed_are_not_parsed_again() -> None:
    text = "jobs:\n  run:\n    runs-on: linux-atom-mi35x-8\n"
    parsed = {"w.yml": {"jobs": {"run": {"runs-on": "ubuntu-latest"}}}}
    assert violations({"w.yml": text}, parsed) == []
    assert violations({"w.yml": text}) == [
        "w.yml: job run runs on a self-hosted runner outside the gpu environment",
        "w.yml: job run runs on a self-hosted runner with no caller check upstream of it",
    ]
    assert violations({"w.yml": "- a list\n"}) == []


def test_a_secret_no_environment_holds_is_named_so() -> None:
    text = "jobs:\n  j:\n    runs-on: ubuntu-latest\n    env: {T: '${{ secrets.OTHER }}'}\n"
    assert violations({"w.yml": text}) == ["w.yml: job j reads secrets.OTHER (no such secret here)"]


def test_a_render_with_several_breaches_names_the_first_and_counts_the_rest() -> None:
    text = "jobs:\n  run:\n    runs-on: linux-atom-mi35x-8\n"
    with pytest.raises(BoundaryBroken) as refused:
        check({"w.yml": text})
    assert str(refused.value) == (
        "the GPU boundary is broken: w.yml: job run runs on a self-hosted runner outside the "
        "gpu environment (and 1 more); see docs/security.md"
    )
    check({"w.yml": "jobs: {}\n"})


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
