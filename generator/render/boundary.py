"""The GPU boundary, checked on every rendered workflow (docs/security.md).

GitHub enforces it through settings these workflows name: every job on a self-hosted
runner deploys to the `gpu` environment (deployments from the default branch only;
`HF_TOKEN` is its secret), and is downstream of a caller check on a GitHub-hosted runner
(`sglang-ci verify caller` and `verify job|case|confirm`) in its own workflow; no
workflow passes a secret to another (`secrets:` on a call, `secrets: inherit`, or a
`workflow_call` secret); a secret is read only by a job of the environment that holds
it. Reusable workflows called with `uses: ./.github/workflows/X.yml` are followed, so a
caller cannot reach a self-hosted job any other way.

The one other self-hosted job is the PR image's build (pr-gpu.yml): it deploys to the
`pr-image` environment (the default branch only; the push credential of the PR image
repository is its only secret) and is downstream of the approval job, which deploys to
`gpu-pr` (required reviewers).
"""

from __future__ import annotations

import json
import re
from typing import Any

from generator.catalog.yamlio import load_data
from generator.errors import CheckFailed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

GPU_ENVIRONMENT = "gpu"
HISTORY_ENVIRONMENT = "history"
PAGES_ENVIRONMENT = "github-pages"
BUILD_ENVIRONMENT = "pr-image"
APPROVAL_ENVIRONMENT = "gpu-pr"
# The push credential of the PR image repository: the build environment's only secrets.
BUILD_SECRETS = ("PR_IMAGE_PUSH_USER", "PR_IMAGE_PUSH_TOKEN")
HISTORY_KEY_SECRET = "HISTORY_DEPLOY_KEY"
# github.com's published Ed25519 host key (GitHub's "SSH key fingerprints" page): the
# history job pushes to this host only.
GITHUB_HOST_KEY = (
    "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
)
# Which environment's jobs may read each secret.
SECRETS = {
    "HF_TOKEN": GPU_ENVIRONMENT,
    HISTORY_KEY_SECRET: HISTORY_ENVIRONMENT,
    **dict.fromkeys(BUILD_SECRETS, BUILD_ENVIRONMENT),
}
_HOSTED = re.compile(r"^(ubuntu|windows|macos)-[a-z0-9.-]+$")
_SECRET = re.compile(r"secrets\.([A-Za-z_][A-Za-z0-9_]*)")
_LOCAL = "./.github/workflows/"


class BoundaryBroken(CheckFailed):
    """A rendered workflow lets a job reach a GPU runner or a secret another way (exit 1)."""


def hosted(job: Mapping[str, Any]) -> bool:
    """A GitHub-hosted runner, named literally (an expression may name any label)."""
    runs_on = job.get("runs-on")
    return isinstance(runs_on, str) and bool(_HOSTED.fullmatch(runs_on))


def environment(job: Mapping[str, Any]) -> str | None:
    env = job.get("environment")
    if isinstance(env, dict):
        env = env.get("name")
    return env if isinstance(env, str) else None


def is_check(job: Mapping[str, Any], kinds: tuple[str, ...] = ("job", "case", "confirm")) -> bool:
    """A caller-check job: GitHub-hosted, running `sglang-ci verify caller`, then (in that
    step or a later one) `sglang-ci verify job|case|confirm`."""
    runs = [str(s.get("run", "")) for s in job.get("steps") or []]
    callers = [i for i, run in enumerate(runs) if "sglang-ci verify caller " in run]
    entries = [
        i for i, run in enumerate(runs) if any(f"sglang-ci verify {k} " in run for k in kinds)
    ]
    return hosted(job) and bool(callers) and bool(entries) and min(callers) <= max(entries)


def upstream(jobs: Mapping[str, Any], name: str) -> set[str]:
    """Every job `name` needs, directly or not."""
    found: set[str] = set()
    todo = [name]
    while todo:
        needs = jobs.get(todo.pop(), {}).get("needs") or []
        for need in [needs] if isinstance(needs, str) else needs:
            if need not in found:
                found.add(need)
                todo.append(need)
    return found


def violations(workflows: Mapping[str, str], parsed: Mapping[str, Any] | None = None) -> list[str]:
    """What breaks the boundary in `workflows` ({path: text}), one line each; `parsed`
    holds the documents render already parsed back (integrity.read_back), else each text
    is parsed here."""
    docs = {
        path: _document(load_data(text) if parsed is None else parsed.get(path))
        for path, text in workflows.items()
    }
    return [*_each(docs, workflows)]


def _document(doc: object) -> dict[Any, Any]:
    return doc if isinstance(doc, dict) else {}


def _each(docs: Mapping[str, dict[Any, Any]], texts: Mapping[str, str]) -> Iterator[str]:
    for path, doc in docs.items():
        if re.search(r"secrets:\s*inherit", texts[path]):
            yield f"{path}: secrets: inherit passes every secret on"
        on = doc.get("on") or {}
        call = on.get("workflow_call") if isinstance(on, dict) else None
        if isinstance(call, dict) and call.get("secrets"):
            yield f"{path}: workflow_call declares secrets {sorted(call['secrets'])}"
        jobs = doc.get("jobs") or {}
        for name, job in jobs.items():
            where = f"{path}: job {name}"
            uses = job.get("uses")
            if isinstance(uses, str):
                if "secrets" in job:
                    yield f"{where} passes secrets to {uses}"
                target = ".github/workflows/" + uses.removeprefix(_LOCAL)
                if not uses.startswith(_LOCAL) or target not in docs:
                    yield f"{where} calls {uses}, not a workflow of this repository"
                continue
            yield from _job(where, jobs, name, job)


def _job(where: str, jobs: Mapping[str, Any], name: str, job: Mapping[str, Any]) -> Iterator[str]:
    env = environment(job)
    above = [jobs[n] for n in upstream(jobs, name) if n in jobs]
    if not hosted(job) and env == BUILD_ENVIRONMENT:
        if not any(environment(j) == APPROVAL_ENVIRONMENT for j in above):
            yield (
                f"{where} builds on a self-hosted runner with no {APPROVAL_ENVIRONMENT} "
                "approval upstream of it"
            )
    elif not hosted(job):
        if env != GPU_ENVIRONMENT:
            yield f"{where} runs on a self-hosted runner outside the {GPU_ENVIRONMENT} environment"
        if not any(is_check(j) for j in above):
            yield f"{where} runs on a self-hosted runner with no caller check upstream of it"
    for secret in sorted(set(_SECRET.findall(json.dumps(job, default=str)))):
        if SECRETS.get(secret) is None or SECRETS[secret] != env:
            owner = SECRETS.get(secret)
            yield (
                f"{where} reads secrets.{secret} "
                + (f"outside the {owner} environment" if owner else "(no such secret here)")
            )


def check(workflows: Mapping[str, str], parsed: Mapping[str, Any] | None = None) -> None:
    """BoundaryBroken naming the first violation and how many there are."""
    found = violations(workflows, parsed)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        msg = f"the GPU boundary is broken: {found[0]}{more}; see docs/security.md"
        raise BoundaryBroken(msg)
