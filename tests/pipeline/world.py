"""Everything the rendered workflows meet at GitHub and on the runners, on this machine:

- the repository: this checkout's tracked files with the pipeline catalogs
  (tests/fixtures/pipeline/) in place of catalogs/, rendered (`sglang-ci render`) and
  committed to a bare git remote, which also receives the history branch;
- images: the tests' local registry (Debian's docker-registry) holding `ci/atom-dev` tags,
  and the stand-in docker's table of what each image digest runs (its SGLang release, how
  much slower it is, its knobs);
- one self-hosted GPU runner label with the stand-in docker, a model cache and a GPU
  allocation file, and one builder label (the stand-in `docker buildx build`, `login`);
- environments as GitHub enforces them: `gpu` (HF_TOKEN), `history` (the deploy key) and
  `pr-image` (the PR image repository's push credential) for the default branch only,
  `github-pages` for the default branch, `gpu-pr`;
- the stand-in gh, on the state the GitHub stand-in keeps."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.helpers import GIT_ENV, ROOT
from tests.launchers.support import SHARDS, STANDIN, complete_snapshot, free_port
from tests.pipeline.github import Environment, GitHub, Runner, WorkflowRun
from tests.registry.oci import Layout
from tests.registry.server import LocalRegistry, running_registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping
    from pathlib import Path

CATALOGS = ROOT / "tests" / "fixtures" / "pipeline"
REPOSITORY = "example/sglang-ci"
LABEL = "mi355-standin"
BUILDER = "builder-standin"
IMAGE = "ci/atom-dev"
PR_IMAGE = "ci/atom-sglang-pr"
PUSH_CREDENTIAL = ("ci-bot", "push-token")
MODELS = ("deepseek-ai/DeepSeek-R1-0528", "Qwen/Qwen3.5-397B-A17B-FP8")
DEFAULT_VERSION = "0.5.23"
NOISE_CV = 0.01  # a launch's own offset: one standard deviation


@dataclass
class Images:
    """The registry's images and what the stand-in docker runs for each digest."""

    registry: LocalRegistry
    layout: Layout
    table_file: Path
    digests: dict[str, str] = field(default_factory=dict)  # tag -> digest now
    knobs: dict[str, dict[str, str]] = field(default_factory=dict)  # digest -> env
    slower: dict[str, float | Mapping[str, float]] = field(default_factory=dict)  # by digest
    base_env: dict[str, str] = field(default_factory=dict)
    _count: int = 0

    def push(
        self,
        tag: str,
        *,
        version: str = DEFAULT_VERSION,
        slower: float | Mapping[str, float] = 0.0,
        env: Mapping[str, str] | None = None,
    ) -> str:
        """A new image under `IMAGE:tag` (the tag moves to it); its digest. `slower`: how
        much slower its servers are (percent), or {model path: percent}."""
        self._count += 1
        descriptor = self.layout.image(f"{tag}-{self._count}")
        ref = f"image{self._count}"
        self.layout.tag(descriptor, ref)
        self.registry.push(self.layout.root, [(ref, f"{IMAGE}:{tag}")])
        digest = descriptor.digest
        self.digests[tag] = digest
        self.knobs[digest] = {"SGLANG_STANDIN_VERSION": version, **(env or {})}
        if slower:
            self.slower[digest] = dict(slower) if isinstance(slower, dict) else slower
        self.write()
        return digest

    def write(self) -> None:
        table: dict[str, Any] = {
            "*": {"env": {**self.base_env, "SGLANG_STANDIN_SLOWER": json.dumps(self.slower)}}
        }
        for digest, knobs in self.knobs.items():
            table[digest] = {"env": knobs}
        self.table_file.write_text(json.dumps(table), encoding="utf-8")


@dataclass
class World:
    root: Path
    github: GitHub
    images: Images
    registry_host: str
    source: Path  # the working copy the repository's commits come from

    @property
    def image(self) -> str:
        return f"{self.registry_host}/{IMAGE}"

    def history_runs(self) -> list[str]:
        """The run directories on the history branch, oldest first."""
        done = subprocess.run(
            ["git", "--git-dir", str(self.github.remote), "ls-tree", "--name-only",
             "benchmark-data", "runs/"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        return [line.removeprefix("runs/") for line in done.stdout.split()]

    def history_file(self, path: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", str(self.github.remote), "show", f"benchmark-data:{path}"],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip

    def artifact_json(self, run: WorkflowRun, artifact: str, path: str) -> Any:  # noqa: ANN401
        """A JSON file of an artifact the run uploaded."""
        return json.loads((self.github.artifacts / str(run.run_id) / artifact / path).read_text())

    def branch(self, name: str, message: str, edit: Mapping[str, str]) -> str:
        """A branch `name` off the default branch with files edited, pushed; its sha (the
        working copy stays on the default branch)."""
        _git(self.source, "checkout", "-q", "-b", name)
        try:
            for path, text in edit.items():
                (self.source / path).write_text(text, encoding="utf-8")
            _git(self.source, "commit", "-q", "-am", message)
            _git(self.source, "push", "-q", "origin", f"HEAD:{name}")
            return _git(self.source, "rev-parse", "HEAD").strip()
        finally:
            _git(self.source, "checkout", "-q", "main")

    def commit(self, message: str, edit: Mapping[str, str] | None = None) -> str:
        """Commit to the default branch (files edited, the generated files rendered again);
        its sha."""
        for name, text in (edit or {}).items():
            (self.source / name).write_text(text, encoding="utf-8")
        _render(self.source)
        _git(self.source, "add", "-A")
        _git(self.source, "commit", "-q", "-m", message)
        _git(self.source, "push", "-q", "origin", "HEAD:main")
        return _git(self.source, "rev-parse", "HEAD").strip()


def _git(where: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(where), *args], env=GIT_ENV, capture_output=True, text=True, check=True
    ).stdout


def _render(source: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from generator.cli.sglang_ci import main; main()", "--root",
         str(source), "render"],
        capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr


def _catalog(name: str, values: Mapping[str, str]) -> str:
    text = (CATALOGS / name).read_text(encoding="utf-8")
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def _repository(root: Path, values: Mapping[str, str]) -> tuple[Path, Path]:
    """The source working copy and the bare remote holding its first commit on main."""
    source, remote = root / "source", root / "remote.git"
    listed = (
        subprocess.run(
            [
                "git",
                "-C",
                str(ROOT),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        if name.startswith(("catalogs/", "tests/fixtures/pipeline/")):
            continue
        src = ROOT / name
        if not src.is_file():
            continue  # deleted in the working tree
        dest = source / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    (source / "catalogs").mkdir()
    for name in ("benchmark.yaml", "accuracy.yaml"):
        (source / "catalogs" / name).write_text(_catalog(name, values), encoding="utf-8")
    _render(source)
    _git(root, "init", "-q", "--bare", str(remote))
    _git(source, "init", "-q", "-b", "main")
    _git(source, "add", "-A")
    _git(source, "commit", "-q", "-m", "sglang-ci with the pipeline catalogs")
    _git(source, "remote", "add", "origin", str(remote))
    _git(source, "push", "-q", "origin", "main")
    _git(remote, "symbolic-ref", "HEAD", "refs/heads/main")
    return source, remote


@contextmanager
def world(root: Path) -> Iterator[World]:
    """The repository, registry, runner and GitHub stand-in under `root`."""
    (root / "registry").mkdir(parents=True)
    with running_registry(root / "registry") as registry:
        cache = root / "model-cache"
        for model in MODELS:
            complete_snapshot(cache, model)
        allocation = root / "gha-render-devices"
        allocation.write_text(
            " ".join(f"--device /dev/dri/renderD{128 + 8 * i}" for i in range(8)) + "\n"
        )
        values = {"registry": registry.host, "cache": str(cache), "allocation": str(allocation)}
        source, remote = _repository(root, values)
        launcher_root = root / "launcher"
        (launcher_root / "tmp").mkdir(parents=True)
        images = Images(registry, Layout(root / "layout"), root / "images.json")
        images.base_env = {
            "PATH": f"{STANDIN / 'bin'}:/usr/bin:/bin",
            "HOME": str(launcher_root),
            "LC_ALL": "C.UTF-8",
            "TMPDIR": str(launcher_root / "tmp"),
            "PYTHONPATH": str(STANDIN),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHON": sys.executable,
            "READY_POLL_S": "0.05",
            "SERVER_STOP_GRACE_S": "2",
            # Each launch 1% faster or slower than the last, the same on every run.
            "SGLANG_STANDIN_NOISE": json.dumps(
                {"cv": NOISE_CV, "seed": "pipeline", "state": str(root / "launches")}
            ),
        }
        runner = Runner(
            path=(STANDIN / "bin",),
            env={
                "DOCKER_STANDIN_IMAGES": str(images.table_file),
                "DOCKER_STANDIN_RECORD": str(root / "docker.jsonl"),
                "DOCKER_STANDIN_STATE": str(root / "docker-state"),
                "DOCKER_STANDIN_PYTHON": sys.executable,
                "SGLANG_PORT": str(free_port()),
                "READY_TIMEOUT_S": "120",
                "SERVER_STOP_GRACE_S": "2",
            },
        )
        builder = Runner(
            path=(STANDIN / "bin",),
            env={
                "DOCKER_STANDIN_RECORD": str(root / "docker.jsonl"),
                "DOCKER_STANDIN_PYTHON": sys.executable,
                "DOCKER_STANDIN_CREDENTIALS": json.dumps(
                    {registry.host: ":".join(PUSH_CREDENTIAL)}
                ),
            },
        )
        gh_dir = root / "gh-bin"
        gh_dir.mkdir()
        (gh_dir / "gh").write_text(
            f'#!/bin/sh\nexec "{sys.executable}" "{STANDIN / "gh_standin.py"}" "$@"\n'
        )
        (gh_dir / "gh").chmod(0o755)
        github = GitHub(
            root / "github",
            remote,
            repository=REPOSITORY,
            environments={
                "gpu": Environment(("main",), {"HF_TOKEN": "hf_standin_token"}),
                "gpu-pr": Environment(("main",)),
                "pr-image": Environment(
                    ("main",),
                    {
                        "PR_IMAGE_PUSH_USER": PUSH_CREDENTIAL[0],
                        "PR_IMAGE_PUSH_TOKEN": PUSH_CREDENTIAL[1],
                    },
                ),
                "history": Environment(("main",), {"HISTORY_DEPLOY_KEY": "not-a-key"}),
                "github-pages": Environment(("main",)),
            },
            runners={LABEL: runner, BUILDER: builder},
            base_path=(gh_dir,),
        )
        images.push("sglang-latest")
        assert len(SHARDS) == 2
        yield World(root, github, images, registry.host, source)
