"""generator.settings: the `gpu` environment and the GPU runner group read back through
`gh api`, one check line each."""

from __future__ import annotations

from typing import Any

from generator.settings import Api, environment, runner_group

REPO, BRANCH = "org/ci", "main"
REFS = [
    f"{REPO}/.github/workflows/{w}@refs/heads/{BRANCH}"
    for w in ("accuracy-case.yml", "benchmark-job.yml", "confirm-job.yml")
]


class Answers(Api):
    """`gh api PATH` answered from a table; the paths asked, in order."""

    def __init__(self, answers: dict[str, Any]) -> None:
        super().__init__()
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, path: str) -> Any:  # noqa: ANN401 (a JSON answer)
        self.asked.append(path)
        return self.answers.get(path, {})


def test_the_environment_holds_the_secret_and_admits_the_default_branch_only() -> None:
    base = f"repos/{REPO}/environments/gpu"
    api = Answers({
        base: {"deployment_branch_policy": {"custom_branch_policies": True}},
        f"{base}/deployment-branch-policies": {"branch_policies": [{"name": "main"}]},
        f"{base}/secrets": {"secrets": [{"name": "HF_TOKEN"}]},
        f"repos/{REPO}/actions/organization-secrets": {"secrets": [{"name": "HF_TOKEN"}]},
    })  # fmt: skip
    assert [c.line() for c in environment(api, REPO, BRANCH)] == [
        "ok: environment gpu deploys from main only (custom branch policies: True; branches: main)",
        "ok: HF_TOKEN is a secret of the gpu environment",
        "missing: no repository or organisation secret is named HF_TOKEN",
    ]
    assert api.asked[-2:] == [
        f"repos/{REPO}/actions/secrets",
        f"repos/{REPO}/actions/organization-secrets",
    ]


def test_an_environment_that_is_not_json_objects_fails_every_check() -> None:
    checks = environment(Answers({}), REPO, BRANCH)
    assert [c.ok for c in checks] == [False, False, True]


def test_a_gpu_runner_group_must_run_exactly_the_default_branchs_reusable_workflows() -> None:
    groups = "orgs/org/actions/runner-groups?per_page=100"
    api = Answers({
        groups: {"runner_groups": [
            {"id": 1, "name": "gpu", "restricted_to_workflows": True, "selected_workflows": REFS},
            {"id": 2, "name": "cpu", "restricted_to_workflows": False},
        ]},
        "orgs/org/actions/runner-groups/1/runners?per_page=100": {
            "runners": [{"name": "mi35x-1", "labels": [{"name": "mi35x"}]}]},
        "orgs/org/actions/runner-groups/2/runners?per_page=100": {
            "runners": [{"name": "cpu-1", "labels": [{"name": "cpu"}]}]},
    })  # fmt: skip
    assert [c.line() for c in runner_group(api, "org", REPO, BRANCH, ["mi35x"])] == [
        (
            "ok: runner group 'gpu' (1 GPU runner(s), e.g. mi35x-1) runs only benchmark-job.yml, "
            "accuracy-case.yml, confirm-job.yml of main (restricted to workflows: True; 3 selected)"
        )
    ]
    assert [c.line() for c in runner_group(Answers({}), "org", REPO, BRANCH, ["mi35x"])] == [
        "missing: a runner group holds the runners labelled mi35x"
    ]
