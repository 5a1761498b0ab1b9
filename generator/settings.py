"""`sglang-ci verify settings`: the two boundaries of docs/security.md read back through
GitHub's API (`gh api`), since no file in the repository can hold them.

1. The `gpu` environment, for the secrets: deployments from the default branch only (a
   custom branch policy naming just that branch), `HF_TOKEN` a secret of the environment
   and of neither the repository nor its organisation.
2. The runner group, for the runners themselves: every self-hosted runner that carries a
   GPU label of the catalog sits in a group restricted to exactly the default branch's
   three reusable GPU workflows. A job that some other workflow defines on a GPU label
   (a branch's or a fork's copy, without `environment:`) is refused by that group alone.

Each check prints one line, `ok: ...` or `missing: ...`; exit 0 when all hold, 1 when one
does not, 2 when the API cannot be read (no token, a 404 for lack of admin rights).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from typing import Any

from generator.core.logtext import one_line
from generator.errors import SglangCIError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

# The API's largest page: an organisation with more runner groups, or a group with more
# runners, than this is read only in part (the count in each answer says so).
PAGE = 100
REUSABLE = ("benchmark-job.yml", "accuracy-case.yml", "confirm-job.yml")
SECRET = "HF_TOKEN"
ENVIRONMENT = "gpu"


class ApiError(SglangCIError):
    """`gh api` failed: the settings could not be read (exit 2)."""


@dataclass(frozen=True, kw_only=True)
class Check:
    ok: bool
    text: str

    def line(self) -> str:
        return f"{'ok' if self.ok else 'missing'}: {self.text}"


class Api:
    """`gh api PATH` for JSON, through the GitHub CLI."""

    def __init__(self, program: str = "gh") -> None:
        self.program = program

    def __call__(self, path: str) -> Any:  # noqa: ANN401 (a JSON answer, checked by the caller)
        argv = [self.program, "api", "-H", "Accept: application/vnd.github+json", path]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=120)
        except (OSError, subprocess.SubprocessError) as exc:
            msg = f"cannot run {self.program}: {exc}"
            raise ApiError(msg) from exc
        if done.returncode != 0:
            first = (done.stderr.strip().splitlines() or ["no message"])[0]
            msg = f"gh api {path} failed ({done.returncode}): {one_line(first)}"
            raise ApiError(msg)
        try:
            return json.loads(done.stdout)
        except ValueError as exc:
            msg = f"gh api {path}: not JSON ({exc})"
            raise ApiError(msg) from exc


def _field(answer: object, key: str) -> Any:  # noqa: ANN401 (a JSON value, checked by the caller)
    """`answer[key]` of a JSON object, else None."""
    return answer.get(key) if isinstance(answer, dict) else None


def _names(items: object, key: str = "name") -> list[str]:
    if not isinstance(items, list):
        return []
    return [str(i.get(key)) for i in items if isinstance(i, dict)]


def environment(api: Api, repo: str, default_branch: str) -> list[Check]:
    """Boundary 1: the `gpu` environment admits the default branch only and holds
    HF_TOKEN, which no repository or organisation secret shadows."""
    base = f"repos/{repo}/environments/{ENVIRONMENT}"
    policy = _field(api(base), "deployment_branch_policy")
    custom = isinstance(policy, dict) and policy.get("custom_branch_policies") is True
    branches: list[tuple[str, str]] = []
    if custom:
        listed = _field(api(f"{base}/deployment-branch-policies"), "branch_policies")
        branches = [
            (str(b.get("name")), str(b.get("type", "branch")))
            for b in listed or []
            if isinstance(b, dict)
        ]
    in_env = SECRET in _names(_field(api(f"{base}/secrets"), "secrets"))
    shadowed = SECRET in {
        name
        for kind in ("secrets", "organization-secrets")
        for name in _names(_field(api(f"repos/{repo}/actions/{kind}"), "secrets"))
    }
    return [
        Check(
            ok=custom and branches == [(default_branch, "branch")],
            text=(
                f"environment {ENVIRONMENT} deploys from {default_branch} only "
                f"(custom branch policies: {custom}; branches: "
                f"{', '.join(n for n, _ in branches) or 'none'})"
            ),
        ),
        Check(ok=in_env, text=f"{SECRET} is a secret of the {ENVIRONMENT} environment"),
        Check(ok=not shadowed, text=f"no repository or organisation secret is named {SECRET}"),
    ]


def _workflow_refs(repo: str, default_branch: str) -> list[str]:
    return sorted(f"{repo}/.github/workflows/{w}@refs/heads/{default_branch}" for w in REUSABLE)


def runner_group(
    api: Api, org: str, repo: str, default_branch: str, labels: Sequence[str]
) -> list[Check]:
    """Boundary 2: every runner with a GPU label is in a group restricted to exactly the
    default branch's reusable GPU workflows."""
    groups = _field(api(f"orgs/{org}/actions/runner-groups?per_page={PAGE}"), "runner_groups")
    wanted = _workflow_refs(repo, default_branch)
    gpu_runners = 0
    checks: list[Check] = []
    for group in groups or []:
        if not isinstance(group, dict):
            continue
        listed = api(f"orgs/{org}/actions/runner-groups/{group.get('id')}/runners?per_page={PAGE}")
        runners = _field(listed, "runners")
        carrying = [
            str(r.get("name"))
            for r in runners or []
            if isinstance(r, dict) and set(_names(r.get("labels"))) & set(labels)
        ]
        if not carrying:
            continue
        gpu_runners += len(carrying)
        selected = sorted(str(w) for w in group.get("selected_workflows") or [])
        restricted = group.get("restricted_to_workflows") is True and selected == wanted
        checks.append(
            Check(
                ok=restricted and not group.get("allows_public_repositories"),
                text=(
                    f"runner group {group.get('name')!r} ({len(carrying)} GPU runner(s), "
                    f"e.g. {carrying[0]}) runs only {', '.join(REUSABLE)} of {default_branch} "
                    f"(restricted to workflows: {group.get('restricted_to_workflows') is True}; "
                    f"{len(selected)} selected)"
                ),
            )
        )
    if gpu_runners == 0:
        checks.append(
            Check(ok=False, text=f"a runner group holds the runners labelled {', '.join(labels)}")
        )
    return checks


def verify_settings(
    api: Api, *, repo: str, org: str, default_branch: str, labels: Sequence[str]
) -> list[Check]:
    return [
        *environment(api, repo, default_branch),
        *runner_group(api, org, repo, default_branch, labels),
    ]
