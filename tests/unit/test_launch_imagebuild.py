"""The builder's command line (generator/launch/imagebuild.py): what `docker buildx build`
is given for a plan, and the plans it refuses before anything runs."""

from __future__ import annotations

from typing import Any

import pytest

from generator.core.exits import InputError
from generator.launch.imagebuild import build, docker_argv

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

HEAD = "0123456789abcdef0123456789abcdef01234567"
BASE = "docker.io/rocm/atom-dev@sha256:" + "ab" * 32


def plan(**changed: Any) -> dict[str, Any]:
    return {
        "pr": 7,
        "head": HEAD,
        "repository": "ghcr.io/example/atom-sglang-pr",
        "tag": f"pr-7-{HEAD[:12]}",
        "base": BASE,
        "dockerfile": "docker/atom-sglang.Dockerfile",
        "context": "docker",
        "args": {"ATOM_REF": "f6c69e1ee"},
        "server_mode": "sglang-atom",
        "cases": ["a"],
        "jobs": [],
        **changed,
    }


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "code/docker").mkdir(parents=True)
    (tmp_path / "code/docker/atom-sglang.Dockerfile").write_text(
        "ARG BASE_IMAGE\nFROM ${BASE_IMAGE}\n"
    )
    return tmp_path / "code"


def test_the_plan_becomes_one_buildx_build_of_the_heads_dockerfile_pushed_by_tag(
    checkout: Path,
) -> None:
    meta = checkout.parent / "metadata.json"
    assert docker_argv(plan(), checkout, meta) == [
        "docker", "buildx", "build",
        "--file", str(checkout.resolve() / "docker/atom-sglang.Dockerfile"),
        "--build-arg", f"BASE_IMAGE={BASE}",
        "--build-arg", "ATOM_REF=f6c69e1ee",
        "--label", f"org.opencontainers.image.revision={HEAD}",
        "--label", f"org.opencontainers.image.base.name={BASE}",
        "--label", f"org.opencontainers.image.description=pull request #7 at {HEAD}",
        "--label", "org.opencontainers.image.base.digest=sha256:" + "ab" * 32,
        "--tag", f"ghcr.io/example/atom-sglang-pr:pr-7-{HEAD[:12]}",
        "--provenance=false", "--push", "--metadata-file", str(meta),
        str(checkout.resolve() / "docker"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"dockerfile": "../Dockerfile"},
         "the build plan's Dockerfile '../Dockerfile' is not a path inside the checkout"),
        ({"context": "/"}, "the build plan's context '/' is not a path inside the checkout"),
        ({"dockerfile": "docker/Other.Dockerfile"},
         "the PR head has no Dockerfile docker/Other.Dockerfile"),
        ({"tag": "latest"},
         ("the build plan's image 'ghcr.io/example/atom-sglang-pr:latest' is not a PR image "
          "reference")),
        ({"head": "f" * 40},
         f"the build plan's head '{'f' * 40}' is not the commit its tag names"),
        ({"args": {"A B": "x"}}, "the build plan's 'args' are not NAME: value build arguments"),
        ({"base": "x\ny"}, "the build plan's 'base' is not a line of text"),
    ],
    ids=["dockerfile-up", "context-absolute", "no-dockerfile", "tag", "head", "args", "base"],
)  # fmt: skip
def test_a_plan_that_leaves_the_checkout_or_names_another_image_is_refused(
    checkout: Path, changed: dict[str, Any], said: str
) -> None:
    with pytest.raises(InputError) as refused:
        docker_argv(plan(**changed), checkout, checkout / "m.json")
    assert str(refused.value) == said


def test_a_link_out_of_the_checkout_is_refused(checkout: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (checkout / "docker/out").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(InputError) as refused:
        docker_argv(plan(context="docker/out"), checkout, checkout / "m.json")
    assert str(refused.value) == "the build plan's context 'docker/out' leads out of the checkout"


def test_a_token_without_its_user_is_refused_before_docker_runs(checkout: Path) -> None:
    environ = {"PR_IMAGE_PUSH_TOKEN": "t", "PATH": ""}  # no docker on PATH: nothing may run
    with pytest.raises(InputError) as refused:
        build(plan(), checkout, environ)
    assert str(refused.value) == (
        "PR_IMAGE_PUSH_TOKEN is set without PR_IMAGE_PUSH_USER: the push credential is both"
    )
