"""The summary and history jobs of the rendered benchmark workflow, their own bash run step
by step against a local git remote: what the history branch holds afterwards, file by
file, read back from the remote."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.catalog.yamlio import load_data
from generator.render.boundary import GITHUB_HOST_KEY
from generator.results.store import COMPACT_FILE
from tests.helpers import ROOT, copy_catalogs
from tests.results_gen import Run, point_record, sweep, write_run

BRANCH = "benchmark-data"
JOB = "benchmark-ds-fp8-tp8-1024x1024"
REPOSITORY = "example/sglang-ci"
POINTS = sweep(concurrencies=(4, 16, 64))
BIN = Path(sys.executable).parent
_EXPRESSION = re.compile(r"\$\{\{\s*([\w.]+)\s*\}\}")


def jobs() -> dict[str, Any]:
    data = load_data((ROOT / ".github/workflows/benchmark.yml").read_text())
    found: dict[str, Any] = data["jobs"]
    return found


def matrix() -> dict[str, Any]:
    return {
        "include": [
            {
                "id": "ds-fp8-tp8-1024x1024",
                "config": "ds-fp8-tp8",
                "runner": "mi355-8gpu",
                "image": "rocm/sgl-dev:nightly",
                "points": [
                    {"id": p.point_id, "isl": 1024, "osl": 1024, "concurrency": p.concurrency}
                    for p in POINTS
                ],
            }
        ]
    }


class Runner:
    """Runs a job's `run:` steps in one workspace, as GitHub would: their env with the
    expressions filled in, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, git's URL for
    the repository rewritten to the local remote."""

    def __init__(self, workspace: Path, remote: Path, run_id: str) -> None:
        self.workspace = workspace
        self.values = {
            "github.token": "not-a-token",
            "secrets.HISTORY_DEPLOY_KEY": "not-a-key",
            "github.repository": REPOSITORY,
            "github.run_id": run_id,
            "github.run_attempt": "1",
            "github.event_name": "workflow_dispatch",
            "needs.select.outputs.matrix": json.dumps(matrix()),
            # The run's name in the history, as the select job gives it (dispatch).
            "needs.select.outputs.run_name": (
                f"2026-11-0{run_id[-1]}T14-00-00Z-benchmark-{run_id}-1"
            ),
            "needs.summary.outputs.attempt": "1",
            "needs.events.outputs.attempt": "1",
        }
        self.values["needs.summary.outputs.run_name"] = self.values["needs.select.outputs.run_name"]
        self.summary = workspace / "step_summary.md"
        self.env = {
            "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
            "HOME": str(workspace / "home"),
            "RUNNER_TEMP": str(workspace / "home"),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "GITHUB_RUN_ID": run_id,
            "GITHUB_RUN_NUMBER": "12",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_WORKFLOW": "Benchmark",
            "GITHUB_REPOSITORY": REPOSITORY,
            # The fetch (https, the token) and the push (ssh, the deploy key) both reach
            # the local remote.
            "GIT_CONFIG_COUNT": "2",
            "GIT_CONFIG_KEY_0": f"url.{remote.as_uri()}.insteadOf",
            "GIT_CONFIG_VALUE_0": f"https://github.com/{REPOSITORY}.git",
            "GIT_CONFIG_KEY_1": f"url.{remote.as_uri()}.insteadOf",
            "GIT_CONFIG_VALUE_1": f"git@github.com:{REPOSITORY}.git",
            "GIT_CONFIG_NOSYSTEM": "1",
        }

    def job(self, name: str) -> bool:
        """Run the job's steps; whether it failed (its last step, on a red run)."""
        failed = False
        for step in jobs()[name]["steps"]:
            # sglang-ci is installed here already (the tests run it from .venv).
            if "run" not in step or step.get("name") == "Install sglang-ci":
                continue
            if step.get("if") == "${{ steps.verdicts.outputs.status != '0' }}":
                failed = self.values["steps.verdicts.outputs.status"] != "0"
                continue
            out = self.workspace / "github_output"
            out.write_text("")
            env = {
                k: _EXPRESSION.sub(lambda m: self.values[m[1]], str(v))
                for k, v in step.get("env", {}).items()
            }
            proc = subprocess.run(
                ["bash", "-e", "-c", step["run"]],
                cwd=self.workspace,
                env={**self.env, **env, "GITHUB_OUTPUT": str(out)},
                capture_output=True,
                text=True,
                check=False,
            )
            assert proc.returncode == 0 or step.get("id") == "verdicts", (step, proc.stderr)
            for line in out.read_text().splitlines():
                key, _, value = line.partition("=")
                if step.get("id"):
                    self.values[f"steps.{step['id']}.outputs.{key}"] = value
        return failed


def remote_files(remote: Path) -> dict[str, bytes]:
    names = subprocess.run(
        ["git", "--git-dir", str(remote), "ls-tree", "-r", "--name-only", BRANCH],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return {
        name: subprocess.run(
            ["git", "--git-dir", str(remote), "show", f"{BRANCH}:{name}"],
            check=True,
            capture_output=True,
        ).stdout
        for name in names
    }


def events_job(folder: Path, verdicts: Path) -> None:
    """The artifact the events job uploads (run/confirmation/): the A/B jobs' documents
    (one cut short), its matrix, outcomes, final verdicts and what `confirm issues` did."""
    step = folder / "confirmation-ab-1" / "ab-1" / "step-0"
    step.mkdir(parents=True)
    (step / "a-p1-r0.json").write_text('{"schema": "sglang-ci/confirmation/1", "step": 0}\n')
    (step / "b-p1-r0.json").write_text('{"schema": "sglang-ci/confirmation/1", "st')
    (folder / "matrix.json").write_text('{"include": []}\n')
    (folder / "outcomes.json").write_text("[]\n")
    (folder / "results.json").write_text("[]\n")
    (folder / "issues.json").write_text('{"schema": "sglang-ci/issues/1", "issues": []}\n')
    (folder / "summary.md").write_text("### A/B confirmation\n")
    shutil.copy(verdicts, folder / "verdicts.json")


def one_run(tmp_path: Path, remote: Path, day: int, confirmation: bool = False) -> Runner:
    """The GPU jobs' artifacts, then the summary job, (with `confirmation`, what the
    events job uploads,) then the history job."""
    workspace = tmp_path / f"w{day}"
    (workspace / "home").mkdir(parents=True)
    copy_catalogs(workspace)  # the default branch's checkout: admit reads its images
    run = Run(day=day)
    job = workspace / "run" / "benchmark-ds-fp8-tp8-1024x1024"
    write_run(job.parent, run, [point_record(run, p) for p in POINTS], name=job.name)
    (job / "summary.md").write_text("### Benchmark: DS-FP8-TP8\n")
    if remote_files_exist(remote):
        subprocess.run(
            ["git", "clone", "-q", "--branch", BRANCH, str(remote), str(workspace / "history")],
            check=True,
        )
    runner = Runner(workspace, remote, run.run_id)
    assert not runner.job("summary")
    new = workspace / "new-run"
    shutil.copytree(workspace / "run", new / "run")
    shutil.copytree(workspace / "judged", new / "judged")
    if confirmation:
        events_job(new / "confirmation", workspace / "judged" / "verdicts.json")
    shutil.rmtree(workspace / "history", ignore_errors=True)
    runner.job("history")
    return runner


def remote_files_exist(remote: Path) -> bool:
    found = subprocess.run(
        ["git", "--git-dir", str(remote), "rev-parse", "--verify", "-q", BRANCH],
        capture_output=True,
        check=False,
    )
    return found.returncode == 0


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    path = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def lost_run(tmp_path: Path, remote: Path) -> Runner:
    """A run whose only job left no record: red, and admitted as it was."""
    workspace = tmp_path / "w0"
    (workspace / "home").mkdir(parents=True)
    copy_catalogs(workspace)  # the default branch's checkout: admit reads its images
    (workspace / "run").mkdir()
    runner = Runner(workspace, remote, "7009")
    assert runner.job("summary")
    assert runner.values["steps.verdicts.outputs.status"] == "1"
    shutil.copytree(workspace / "judged", workspace / "new-run" / "judged")
    runner.job("history")
    return runner


def test_every_json_file_the_history_job_commits_parses_and_is_what_it_claims(
    tmp_path: Path, remote: Path
) -> None:
    lost = lost_run(tmp_path, remote)
    text = lost.summary.read_text()
    assert text.startswith(
        "## red: the run reported no record of the 3 points expected: every job of it was "
        "lost or never ran · Benchmark #12\n\n**fail**: the run reported no record of the 3 "
        "points expected: every job of it was lost or never ran; 1 missing job(s) (3 points)\n"
    )
    assert "- missing job `ds-fp8-tp8-1024x1024` (3 points): not reported\n" in text
    second = one_run(tmp_path, remote, day=1, confirmation=True)
    # The deploy key lived for the push only.
    assert not (second.workspace / "home" / "history-deploy-key").exists()
    assert (second.workspace / "home" / "history-known-hosts").read_text() == (
        f"{GITHUB_HOST_KEY}\n"
    )
    assert second.summary.read_text().startswith(
        "## green: no regression · Benchmark #12\n\n### Provenance\n"
    )
    files = remote_files(remote)
    runs = sorted({name.split("/")[1] for name in files}, key=lambda n: "7001" in n)
    assert [r.rsplit("-", 2)[1:] for r in runs] == [["7009", "1"], ["7001", "1"]]
    kept = [
        "confirmation/confirmation-ab-1/ab-1/step-0/a-p1-r0.json",
        "confirmation/issues.json",
        "confirmation/matrix.json",
        "confirmation/outcomes.json",
        "confirmation/results.json",
        "confirmation/verdicts.json",
    ]
    for name, data in files.items():
        assert name.startswith("runs/"), name
        if name.endswith(".json"):
            parsed = json.loads(data)
            if name.split("/", 2)[2] not in kept:
                schema = parsed["schema"]
                assert schema.startswith(("sglang-ci/record/1", "sglang-ci/manifest/1"))
        else:
            assert name.endswith("/" + COMPACT_FILE), name
    first, last = (
        sorted(
            name.split("/", 2)[2]
            for name in files
            if name.startswith(f"runs/{run}/") and not name.startswith(f"runs/{run}/confirmation/")
        )
        for run in runs
    )
    assert (
        sorted(
            name.split("/", 2)[2]
            for name in files
            if name.startswith(f"runs/{runs[1]}/confirmation/")
        )
        == kept
    )
    assert first == sorted([COMPACT_FILE, "manifest.json"])
    assert last == sorted(
        [
            COMPACT_FILE,
            "manifest.json",
            *(f"{JOB}/ds-fp8-tp8-1024x1024/{p.point_id}.json" for p in POINTS),
        ]
    )
    lost_manifest = json.loads(files[f"runs/{runs[0]}/manifest.json"])
    assert (lost_manifest["verdicts"]["outcome"], lost_manifest["records"]["count"]) == (
        "fail",
        0,
    )
    manifest = json.loads(files[f"runs/{runs[1]}/manifest.json"])
    assert manifest["verdicts"]["schema"] == "sglang-ci/verdicts/2"
    assert manifest["matrix"] == [matrix()]
    assert manifest["left_out"] == [
        f"{JOB}/summary.md",
        "confirmation/confirmation-ab-1/ab-1/step-0/b-p1-r0.json",
        "confirmation/summary.md",
    ]
    assert manifest["confirmation"] == kept
    assert manifest["run"]["number"] == 12
