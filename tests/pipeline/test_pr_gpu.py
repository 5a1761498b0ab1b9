"""A pull request's GPU run as GitHub runs pr-gpu.yml (tests/pipeline/github.py): its head
changes the PR image's Dockerfile, so the builder builds it (the stand-in `docker buildx
build`: a real OCI image on the base, pushed to the local registry), the PR's cases run on
its digest, their records say so, and the history refuses them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from generator.imageref.reference import parse_reference
from generator.images.registry import RegistryClient
from tests.helpers import ROOT
from tests.pipeline.world import IMAGE, PR_IMAGE, PUSH_CREDENTIAL, World, world

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

PR = 7
CASE = "qwen3-5-397b-a17b-fp8-tp4"
DOCKERFILE = "docker/atom-sglang.Dockerfile"


@pytest.fixture
def github_world(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as w:
        yield w


def _docker_calls(w: World) -> list[dict[str, object]]:
    lines = (w.root / "docker.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_pr_that_changes_the_dockerfile_runs_its_cases_on_the_image_built_from_it(
    github_world: World, tmp_path: Path
) -> None:
    w = github_world
    dockerfile = (w.source / DOCKERFILE).read_text()
    head = w.branch("atom-bump", "Dockerfile: ATOM at another commit", {
        DOCKERFILE: dockerfile + "\nLABEL org.example.change=pr-7\n",
    })  # fmt: skip
    w.github.set_pull(PR, {
        "head": {"repo": {"full_name": w.github.repository}, "sha": head, "ref": "atom-bump"},
        "base": {"ref": "main"}, "draft": False, "state": "open",
    })  # fmt: skip
    run = w.github.run("pr-gpu.yml", "workflow_dispatch", inputs={"pr": PR})
    jobs = {job.name: job.result for job in run.jobs}
    assert run.conclusion == "success", run.describe()
    assert jobs == {
        "Select what the PR's change reaches": "success",
        "Approve the GPU run of this commit": "success",
        "Build the PR's image": "success",
        "Run the PR's cases on its image": "success",
        f"{CASE} / Check the caller and the case": "success",
        f"{CASE} / {CASE}": "success",
        "benchmark": "skipped",  # no benchmark jobs were asked for
    }, run.describe()
    select = run.job("Select what the PR's change reaches")
    assert "the PR image)" in select.summary  # why the case runs: the Dockerfile changed
    assert f"- `{DOCKERFILE}`" in select.summary  # the reviewer sees the Dockerfile changed

    # The builder logged in with the environment's credential, built the head's
    # Dockerfile on the pinned base and pushed it; the registry holds that digest.
    base_digest = w.images.digests["sglang-latest"]
    tag = f"pr-{PR}-{head[:12]}"
    calls = [c for c in _docker_calls(w) if c["command"] != "run" and c["command"] != "rm"]
    assert [c["command"] for c in calls] == ["login", "buildx build", "logout"]
    assert calls[0] == {"command": "login", "registry": w.registry_host,
                        "username": PUSH_CREDENTIAL[0]}  # fmt: skip
    built = calls[1]
    assert built["base"] == f"{w.image}@{base_digest}"
    assert built["build_args"] == ["ATOM_REF", "ATOM_REPOSITORY", "BASE_IMAGE"]
    assert built["authenticated"] is True
    pushed = str(built["pushed"])
    assert pushed.startswith(f"{w.registry_host}/{PR_IMAGE}:{tag}@sha256:")
    digest = pushed.rpartition("@")[2]
    ref = parse_reference(f"{w.registry_host}/{PR_IMAGE}:{tag}")
    assert RegistryClient().digest(ref, tag) == digest
    labels = RegistryClient().labels(ref, digest)
    assert labels["org.example.change"] == "pr-7"  # the head's Dockerfile, not main's
    assert labels["org.opencontainers.image.revision"] == head
    assert labels["org.opencontainers.image.base.digest"] == base_digest

    # The case ran on that digest, and its record names the PR, the head and the base.
    image = f"{w.registry_host}/{PR_IMAGE}@{digest}"
    [started] = [c for c in _docker_calls(w) if c["command"] == "run"]
    assert started["image"] == image
    artifact = w.github.artifacts / str(run.run_id) / f"accuracy-{CASE}-attempt-1"
    [record_file] = [p for p in artifact.rglob("*.json") if "provenance" in p.read_text()]
    record = json.loads(record_file.read_text())
    assert record["provenance"]["image"] == {
        "requested": f"{w.registry_host}/{PR_IMAGE}:{tag}",
        "tag": tag,
        "digest": digest,
        "pinned": image,
        "resolution": "built",
        "build": {
            "pr": PR,
            "head": head,
            "base": f"{w.image}@{base_digest}",
            "dockerfile": DOCKERFILE,
        },
    }

    # The history never admits it, whatever the run was.
    admitted = subprocess.run(
        [sys.executable, "-c", "from generator.cli.sglang_ci import main; main()", "--root",
         str(w.source), "results", "admit", str(artifact), "--history",
         str(tmp_path / "history"), "--name", f"2026-12-01T00-00-00Z-accuracy-{run.run_id}-1"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert admitted.returncode == 2, admitted.stdout + admitted.stderr
    rel = record_file.relative_to(artifact).as_posix()
    assert admitted.stderr == (
        f"error: {rel}: image '{image}' is a pull request's image (built for PR #{PR}): the "
        "history admits none; the run is not admitted\n"
    )
    assert not (tmp_path / "history").exists()
    assert IMAGE in w.image
