"""`sglang-ci verify settings`: the two boundaries of docs/security.md (the `gpu`
environment, the runner group) read through `gh api`, against the stand-in gh that
answers as GitHub's REST API does."""

from __future__ import annotations

import copy
import json
import os
import sys
from typing import Any

import pytest

from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.conftest import Invoke

REPO = "acme/sglang-ci"
ENV = f"repos/{REPO}/environments/gpu"
GROUPS = "orgs/acme/actions/runner-groups"
PAGE = "?per_page=100"
WORKFLOWS = [
    f"{REPO}/.github/workflows/{w}@refs/heads/main"
    for w in ("accuracy-case.yml", "benchmark-job.yml", "confirm-job.yml")
]


def _runner(name: str, *labels: str) -> dict[str, Any]:
    return {"name": name, "labels": [{"name": n} for n in ("self-hosted", "Linux", *labels)]}


# What GitHub answers for a repository set up as docs/security.md says.
GOOD: dict[str, Any] = {
    ENV: {
        "name": "gpu",
        "deployment_branch_policy": {"protected_branches": False, "custom_branch_policies": True},
    },
    f"{ENV}/deployment-branch-policies": {
        "total_count": 1,
        "branch_policies": [{"name": "main", "type": "branch"}],
    },
    f"{ENV}/secrets": {"total_count": 1, "secrets": [{"name": "HF_TOKEN"}]},
    f"repos/{REPO}/actions/secrets": {"total_count": 0, "secrets": []},
    f"repos/{REPO}/actions/organization-secrets": {"total_count": 0, "secrets": []},
    GROUPS + PAGE: {
        "total_count": 2,
        "runner_groups": [
            {
                "id": 1,
                "name": "Default",
                "default": True,
                "restricted_to_workflows": False,
                "selected_workflows": [],
                "allows_public_repositories": False,
            },
            {
                "id": 7,
                "name": "mi35x",
                "default": False,
                "restricted_to_workflows": True,
                "selected_workflows": WORKFLOWS,
                "allows_public_repositories": False,
            },
        ],
    },
    f"{GROUPS}/1/runners{PAGE}": {"total_count": 1, "runners": [_runner("hosted-helper", "cpu")]},
    f"{GROUPS}/7/runners{PAGE}": {
        "total_count": 2,
        "runners": [
            _runner("mi355-01", "linux-atom-mi35x-8"),
            _runner("mi355-02", "atom-mi355-8gpu-aac-runner"),
        ],
    },
}
OK_LINES = [
    "ok: environment gpu deploys from main only (custom branch policies: True; branches: main)",
    "ok: HF_TOKEN is a secret of the gpu environment",
    "ok: no repository or organisation secret is named HF_TOKEN",
    (
        "ok: runner group 'mi35x' (2 GPU runner(s), e.g. mi355-01) runs only benchmark-job.yml, "
        "accuracy-case.yml, confirm-job.yml of main (restricted to workflows: True; 3 selected)"
    ),
]


def _no_branch_policy(api: dict[str, Any]) -> None:
    api[ENV]["deployment_branch_policy"] = None


def _protected_branches(api: dict[str, Any]) -> None:
    api[ENV]["deployment_branch_policy"] = {
        "protected_branches": True,
        "custom_branch_policies": False,
    }


def _a_second_branch(api: dict[str, Any]) -> None:
    api[f"{ENV}/deployment-branch-policies"]["branch_policies"].append(
        {"name": "release/*", "type": "branch"}
    )


def _token_a_repository_secret(api: dict[str, Any]) -> None:
    api[f"repos/{REPO}/actions/secrets"]["secrets"] = [{"name": "HF_TOKEN"}]


def _token_an_organisation_secret(api: dict[str, Any]) -> None:
    api[f"repos/{REPO}/actions/organization-secrets"]["secrets"] = [{"name": "HF_TOKEN"}]


def _token_not_in_the_environment(api: dict[str, Any]) -> None:
    api[f"{ENV}/secrets"]["secrets"] = []


def _group_not_restricted(api: dict[str, Any]) -> None:
    api[GROUPS + PAGE]["runner_groups"][1]["restricted_to_workflows"] = False


def _group_admits_a_branch_workflow(api: dict[str, Any]) -> None:
    api[GROUPS + PAGE]["runner_groups"][1]["selected_workflows"] = [
        *WORKFLOWS,
        f"{REPO}/.github/workflows/evil.yml@refs/heads/evil",
    ]


def _group_admits_another_branch(api: dict[str, Any]) -> None:
    api[GROUPS + PAGE]["runner_groups"][1]["selected_workflows"] = [
        w.replace("refs/heads/main", "refs/heads/dev") for w in WORKFLOWS
    ]


def _gpu_runner_in_the_default_group(api: dict[str, Any]) -> None:
    api[f"{GROUPS}/1/runners{PAGE}"]["runners"].append(_runner("mi355-03", "linux-atom-mi35x-4"))


def _group_allows_public_repositories(api: dict[str, Any]) -> None:
    api[GROUPS + PAGE]["runner_groups"][1]["allows_public_repositories"] = True


def _no_gpu_runner_found(api: dict[str, Any]) -> None:
    api[f"{GROUPS}/7/runners{PAGE}"]["runners"] = []


# Each broken setting: the one line that says so (all others stay ok).
BROKEN: dict[str, tuple[Callable[[dict[str, Any]], None], str]] = {
    "environment-without-branch-policy": (
        _no_branch_policy,
        (
            "missing: environment gpu deploys from main only (custom branch policies: False; "
            "branches: none)"
        ),
    ),
    "environment-on-protected-branches": (
        _protected_branches,
        (
            "missing: environment gpu deploys from main only (custom branch policies: False; "
            "branches: none)"
        ),
    ),
    "environment-admits-a-second-branch": (
        _a_second_branch,
        (
            "missing: environment gpu deploys from main only (custom branch policies: True; "
            "branches: main, release/*)"
        ),
    ),
    "token-a-repository-secret": (
        _token_a_repository_secret,
        "missing: no repository or organisation secret is named HF_TOKEN",
    ),
    "token-an-organisation-secret": (
        _token_an_organisation_secret,
        "missing: no repository or organisation secret is named HF_TOKEN",
    ),
    "token-not-in-the-environment": (
        _token_not_in_the_environment,
        "missing: HF_TOKEN is a secret of the gpu environment",
    ),
    "group-not-restricted-to-workflows": (
        _group_not_restricted,
        (
            "missing: runner group 'mi35x' (2 GPU runner(s), e.g. mi355-01) runs only "
            "benchmark-job.yml, accuracy-case.yml, confirm-job.yml of main (restricted to "
            "workflows: False; 3 selected)"
        ),
    ),
    "group-admits-a-branch-workflow": (
        _group_admits_a_branch_workflow,
        (
            "missing: runner group 'mi35x' (2 GPU runner(s), e.g. mi355-01) runs only "
            "benchmark-job.yml, accuracy-case.yml, confirm-job.yml of main (restricted to "
            "workflows: True; 4 selected)"
        ),
    ),
    "group-admits-another-branch": (
        _group_admits_another_branch,
        (
            "missing: runner group 'mi35x' (2 GPU runner(s), e.g. mi355-01) runs only "
            "benchmark-job.yml, accuracy-case.yml, confirm-job.yml of main (restricted to "
            "workflows: True; 3 selected)"
        ),
    ),
    "gpu-runner-in-the-default-group": (
        _gpu_runner_in_the_default_group,
        (
            "missing: runner group 'Default' (1 GPU runner(s), e.g. mi355-03) runs only "
            "benchmark-job.yml, accuracy-case.yml, confirm-job.yml of main (restricted to "
            "workflows: False; 0 selected)"
        ),
    ),
    "group-allows-public-repositories": (
        _group_allows_public_repositories,
        (
            "missing: runner group 'mi35x' (2 GPU runner(s), e.g. mi355-01) runs only "
            "benchmark-job.yml, accuracy-case.yml, confirm-job.yml of main (restricted to "
            "workflows: True; 3 selected)"
        ),
    ),
    "no-gpu-runner-in-any-group": (
        _no_gpu_runner_found,
        (
            "missing: a runner group holds the runners labelled atom-mi355-8gpu-aac-runner, "
            "linux-atom-mi35x-4, linux-atom-mi35x-8"
        ),
    ),
}


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[dict[str, Any]], None]:
    """Put the stand-in gh first on PATH; the returned function sets its API answers."""
    monkeypatch.setenv("PATH", f"{ROOT / 'tests/standin/bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GH_STANDIN_STATE", str(tmp_path / "github.json"))
    monkeypatch.setenv("GH_STANDIN_PYTHON", sys.executable)
    monkeypatch.setenv("GH_TOKEN", "token")

    def answers(api: dict[str, Any]) -> None:
        (tmp_path / "github.json").write_text(json.dumps({"api": api}))

    return answers


def settings(cli: Invoke) -> tuple[int, list[str], str]:
    result = cli("verify", "settings", "--repo", REPO)
    return result.exit_code, result.stdout.splitlines(), result.stderr


def test_both_boundaries_in_place_pass(cli: Invoke, gh: Callable[[dict[str, Any]], None]) -> None:
    gh(GOOD)
    assert settings(cli) == (0, OK_LINES, "")


@pytest.mark.parametrize("case", BROKEN, ids=BROKEN.keys())
def test_a_missing_boundary_is_named_in_one_line_and_exits_1(
    cli: Invoke, gh: Callable[[dict[str, Any]], None], case: str
) -> None:
    breaks, line = BROKEN[case]
    api = copy.deepcopy(GOOD)
    breaks(api)
    gh(api)
    code, lines, stderr = settings(cli)
    assert code == 1
    assert stderr == ""
    assert line in lines
    assert [x for x in lines if x.startswith("missing: ")] == [line]


def test_settings_the_token_cannot_read_exit_2_with_one_line(
    cli: Invoke, gh: Callable[[dict[str, Any]], None]
) -> None:
    api = copy.deepcopy(GOOD)
    del api[f"{ENV}/secrets"]  # a token without admin rights reads no secret names
    gh(api)
    code, lines, stderr = settings(cli)
    assert (code, lines) == (2, [])
    assert stderr == (f"error: gh api {ENV}/secrets failed (1): gh: Not Found (HTTP 404)\n")
