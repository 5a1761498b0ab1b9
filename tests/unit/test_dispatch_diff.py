"""`sglang-ci diff BASE` and the PR GPU run's selection, on a git repository holding the
fixture catalogs: what a change runs on the GPUs, and nothing for a docs-only change."""

from __future__ import annotations

import json
import shutil

import pytest

from generator.dispatch.diff import diff, text
from tests.helpers import edit, expanded_at, git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

# The PR-level cases of the fixture catalog (levels: [nightly, pr]).
PR_CASES = ["deepseek-r1-fp4-tp4", "deepseek-r1-fp8-tp4", "qwen3-5-35b-a3b-fp8-tp2"]


@pytest.fixture
def repo(tmp_path: Path, rendered_fixture: Path) -> Path:
    """A repository whose `main` holds the fixture catalogs, their rendered files, a
    launcher file and a doc, checked out on a branch `change`."""
    root = tmp_path / "repo"
    shutil.copytree(rendered_fixture, root)
    (root / "scripts").mkdir()
    (root / "scripts/launch.py").write_text("print('launch')\n")
    (root / "docs/index.md").write_text("# Docs\n")
    git(root, "init", "--quiet", "--initial-branch=main")
    git(root, "add", ".")
    git(root, "commit", "--quiet", "-m", "base")
    git(root, "checkout", "--quiet", "-b", "change")
    return root


def commit(root: Path) -> None:
    git(root, "commit", "--quiet", "-am", "change")


def test_one_changed_accuracy_case_lists_exactly_that_case(repo: Path) -> None:
    edit(
        repo / "catalogs/accuracy.yaml",
        "    benchmark: qwen3-5-397b-a17b-fp8-tp4\n"
        "    runner: linux-atom-mi35x-4\n"
        "    levels: [nightly]\n"
        "    threshold: 0.83\n",
        "    benchmark: qwen3-5-397b-a17b-fp8-tp4\n"
        "    runner: linux-atom-mi35x-4\n"
        "    levels: [nightly]\n"
        "    threshold: 0.84\n",
    )
    commit(repo)
    changes = diff(repo, "main", expanded_at(repo))
    assert changes.files == ("catalogs/accuracy.yaml",)
    assert changes.cases == (("qwen3-5-397b-a17b-fp8-tp4", "threshold changed"),)
    assert changes.jobs == ()
    assert [e["id"] for e in changes.case_entries] == ["qwen3-5-397b-a17b-fp8-tp4"]
    assert changes.case_entries[0]["threshold"] == 0.84


def test_a_docs_only_change_lists_nothing(repo: Path, fixture: Expanded) -> None:
    (repo / "docs/index.md").write_text("# Docs\n\nMore words.\n")
    commit(repo)
    changes = diff(repo, "main", fixture)  # the catalogs are the fixture's
    assert (changes.files, changes.cases, changes.jobs) == (("docs/index.md",), (), ())
    assert text(changes) == (
        "against main: 1 file(s) changed\n"
        "accuracy cases to run: 0\n"
        "benchmark jobs whose server, client, points or image changed: 0\n"
    )


def test_a_launcher_change_runs_the_pr_level_cases(repo: Path, fixture: Expanded) -> None:
    (repo / "scripts/launch.py").write_text("print('launch, changed')\n")  # not committed
    changes = diff(repo, "main", fixture)  # the catalogs are the fixture's
    assert changes.files == ("scripts/launch.py",)
    assert changes.cases == tuple((c, "PR-level case; scripts/launch.py changed") for c in PR_CASES)
    assert changes.jobs == ()


def test_a_server_change_runs_its_case_and_its_jobs(repo: Path) -> None:
    edit(
        repo / "catalogs/benchmark.yaml",
        "  - prefix: deepseek-r1-fp8-tp8\n"
        "    display: DeepSeek-R1-0528 FP8 TP8\n"
        "    suite: SGLang-OOB\n"
        "    model: deepseek-r1-fp8\n"
        "    parallel: {tp: 8}\n"
        "    args: [trust_remote_code, aiter_runtime]\n",
        "  - prefix: deepseek-r1-fp8-tp8\n"
        "    display: DeepSeek-R1-0528 FP8 TP8\n"
        "    suite: SGLang-OOB\n"
        "    model: deepseek-r1-fp8\n"
        "    parallel: {tp: 8}\n"
        "    args: [trust_remote_code, aiter_runtime, {--max-running-requests: 512}]\n",
    )
    commit(repo)
    head = expanded_at(repo)
    changes = diff(repo, "main", head)
    assert changes.cases == (("deepseek-r1-fp8-tp8", "server_args changed"),)
    # The config's one packed job (ten points on one server).
    (job,) = head.jobs[("deepseek-r1-fp8-tp8", "sglang-atom", "per-server")]
    assert (job.id, len(job.cells)) == ("deepseek-r1-fp8-tp8", 10)
    assert changes.jobs == (("deepseek-r1-fp8-tp8 (sglang-atom)", "server_args changed"),)
    assert [e["id"] for e in changes.job_entries] == ["deepseek-r1-fp8-tp8"]
    assert all("--max-running-requests" in e["server_args"] for e in changes.job_entries), (
        changes.job_entries
    )


def test_a_generator_change_that_alters_a_launch_shows(repo: Path, fixture: Expanded) -> None:
    """The base side is the committed matrices, rendered by the base's generator: here
    one whose case entry lacked an argument the working tree's generator adds."""
    path = repo / ".github/matrices/accuracy/nightly.json"
    matrix = json.loads(path.read_text())
    (entry,) = [e for e in matrix["include"] if e["id"] == "deepseek-r1-fp8-tp8"]
    entry["server_args"] = entry["server_args"][:-1]
    path.write_text(json.dumps(matrix))
    git(repo, "commit", "--quiet", "--amend", "-am", "base, rendered differently")
    git(repo, "branch", "--quiet", "--force", "main")
    changes = diff(repo, "main", fixture)  # the catalogs are the fixture's
    assert changes.files == ()
    assert changes.cases == (("deepseek-r1-fp8-tp8", "server_args changed"),)


def test_a_base_without_matrices_runs_everything(repo: Path, fixture: Expanded) -> None:
    git(repo, "rm", "--quiet", "-r", ".github/matrices")
    git(repo, "commit", "--quiet", "-m", "no matrices")
    git(repo, "branch", "--quiet", "--force", "main")
    git(repo, "checkout", "--quiet", "-b", "again")
    changes = diff(repo, "main", fixture)  # the catalogs are the fixture's
    assert len(changes.cases) == 17  # 16 cases, the SGLang one on 2 images
    assert {why for _, why in changes.cases} == {"main has no committed matrices"}


def test_a_new_case_is_listed_as_new(repo: Path) -> None:
    text_before = (repo / "catalogs/accuracy.yaml").read_text()
    block = text_before[text_before.index("  - id: qwen3-5-397b-a17b-fp8-tp4\n") :]
    block = block[: block.index("\n\n") + 2]
    (repo / "catalogs/accuracy.yaml").write_text(
        text_before.replace(block, block + block.replace("fp8-tp4\n", "fp8-tp4-again\n", 1), 1)
    )
    commit(repo)
    changes = diff(repo, "main", expanded_at(repo))
    assert changes.cases == (("qwen3-5-397b-a17b-fp8-tp4-again", "new"),)


def test_the_cli_prints_the_list_and_refuses_an_unknown_base(cli: Invoke, repo: Path) -> None:
    (repo / "scripts/launch.py").write_text("print('launch, changed')\n")
    result = cli("diff", "main", "--json", root=repo)
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {
        "base": "main",
        "files": ["scripts/launch.py"],
        "cases": [{"id": c, "why": "PR-level case; scripts/launch.py changed"} for c in PR_CASES],
        "jobs": [],
        "built": [],
    }
    result = cli("diff", "no-such-branch", root=repo)
    assert result.exit_code == 2
    assert result.output.startswith("error: git merge-base no-such-branch HEAD: fatal: ")


def test_the_pr_selection_writes_both_matrices(
    cli: Invoke, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "scripts/launch.py").write_text("print('launch, changed')\n")
    commit(repo)
    head = git(repo, "rev-parse", "change").strip()
    git(repo, "checkout", "--quiet", "main")  # the default branch's code selects
    out, summary = tmp_path / "output", tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("SGLANG_CI_RESOLVE_IMAGES", "0")
    result = cli("dispatch", "pr", "--base", "main", "--head", head, root=repo)
    assert result.exit_code == 0, result.output
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert sorted(lines) == ["build", "count", "jobs", "jobs_count", "matrix"]
    assert [e["id"] for e in json.loads(lines["matrix"])["include"]] == PR_CASES
    assert (lines["count"], lines["jobs"], lines["jobs_count"]) == ("3", '{"include":[]}', "0")
    assert lines["build"] == ""  # the catalog builds no image
    report = summary.read_text()
    trusted = git(repo, "rev-parse", "main").strip()
    assert report.startswith(
        "### What this change runs on the GPUs\n\n"
        f"Computed by the default branch's sglang-ci (`{trusted}`) from the catalogs of the "
        f"pull request's head `{head}`, read as data; the runner contract and the image "
        "repositories are the default branch's. The GPU jobs check out that head.\n\n"
        "1 file(s) changed since the merge base with `main`.\n\n"
        "The GPU jobs run these 1 file(s) from the head, each different from `main` "
        "(launcher, scripts, generator, templates, catalogs, workflows, install files, the PR "
        "image's build):\n\n"
        "- `scripts/launch.py`\n\n"
        "| Kind | Id | Runner label | Image | Requested | What changed |\n"
        "| --- | --- | --- | --- | --- | --- |\n"
        "| accuracy case | `deepseek-r1-fp4-tp4` | `linux-atom-mi35x-4` | "
        "`rocm/atom-dev:sglang-latest` | `rocm/atom-dev:sglang-latest` | "
        "PR-level case; scripts/launch.py changed |\n"
    )
    assert "Benchmark jobs run only when the dispatch asks for them (`benchmark`)." in report


def test_the_pin_job_passes_a_selection_without_an_image_to_build_unchanged(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    matrix = {"include": [{"id": "a", "image": "rocm/atom-dev@sha256:" + "ab" * 32}]}
    files = {"matrix": matrix, "jobs": {"include": []}}
    for name, data in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(data))
    (tmp_path / "build.json").write_text("\n")  # the select job's empty `build` output
    out = tmp_path / "output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    result = cli(
        "dispatch", "built", "--matrix", str(tmp_path / "matrix.json"),
        "--jobs", str(tmp_path / "jobs.json"), "--build", str(tmp_path / "build.json"),
    )  # fmt: skip
    assert (result.exit_code, result.stdout) == (
        0,
        "1 cases and 0 jobs run on their own images (nothing built)\n",
    )
    lines = dict(line.split("=", 1) for line in out.read_text().splitlines())
    assert lines == {
        "matrix": json.dumps(matrix, separators=(",", ":")),
        "count": "1",
        "jobs": '{"include":[]}',
        "jobs_count": "0",
        "build": "",
    }
    (tmp_path / "jobs.json").write_text('{"jobs": []}')
    result = cli(
        "dispatch", "built", "--matrix", str(tmp_path / "matrix.json"),
        "--jobs", str(tmp_path / "jobs.json"), "--build", str(tmp_path / "build.json"),
    )  # fmt: skip
    assert (result.exit_code, result.stderr) == (
        2, f"error: {tmp_path / 'jobs.json'}: not a matrix (no 'include' list)\n",
    )  # fmt: skip
