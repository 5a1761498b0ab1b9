"""On the builder: `python3 -I scripts/build_image.py PLAN CHECKOUT` builds a pull
request's image and pushes it (docs/images.md, "Pull request images").

PLAN is the select job's build plan (generator/images/prbuild.py); CHECKOUT the PR head's
checkout, whose Dockerfile and context are built. The build is Docker's:

    docker login REGISTRY --username USER --password-stdin      (the push credential)
    docker buildx build --file CHECKOUT/DOCKERFILE --build-arg BASE_IMAGE=BASE
        --build-arg NAME=VALUE... --label org.opencontainers.image.*=...
        --tag REPOSITORY:TAG --provenance=false --push --metadata-file FILE CHECKOUT/CONTEXT
    docker logout REGISTRY

with `DOCKER_CONFIG` a private directory of the job's, removed at the end, so the
credential (the environment's PR_IMAGE_PUSH_USER and PR_IMAGE_PUSH_TOKEN, given on
standard input) outlives neither the step nor reaches the build's containers. The digest
is the metadata file's `containerimage.digest`; it goes to $GITHUB_OUTPUT as `digest=`.
The build's output is printed between `::stop-commands::` frames: the PR's Dockerfile
prints what it likes. Standard library only, like the launcher.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from generator.core.console import say, token_for
from generator.core.exits import Infrastructure, InputError, LaunchError, bug, error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

PROGRAM = "build_image.py"
USAGE = f"usage: python3 -I scripts/{PROGRAM} PLAN CHECKOUT"
USER_ENV = "PR_IMAGE_PUSH_USER"
TOKEN_ENV = "PR_IMAGE_PUSH_TOKEN"
BUILD_TIMEOUT_S = 12 * 3600  # the job's timeout stops it first
_REPOSITORY = re.compile(r"[a-z0-9][a-z0-9._-]*(:[0-9]+)?(/[a-z0-9][a-z0-9._-]*)+")
_TAG = re.compile(r"pr-[1-9][0-9]*-[0-9a-f]{12}")
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_ARG = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMIT = re.compile(r"[0-9a-f]{40}")


def _text(plan: Mapping[str, object], key: str) -> str:
    value = plan.get(key)
    if not isinstance(value, str) or not value or "\0" in value or "\n" in value:
        msg = f"the build plan's '{key}' is not a line of text"
        raise InputError(msg)
    return value


def _inside(checkout: Path, rel: str, what: str) -> Path:
    """`checkout/rel`, refused when it leaves the checkout (`..`, a link out of it)."""
    if rel.startswith("/") or ".." in rel.split("/"):
        msg = f"the build plan's {what} '{rel}' is not a path inside the checkout"
        raise InputError(msg)
    path = (checkout / rel).resolve()
    if not path.is_relative_to(checkout.resolve()):
        msg = f"the build plan's {what} '{rel}' leads out of the checkout"
        raise InputError(msg)
    return path


def docker_argv(plan: Mapping[str, object], checkout: Path, metadata: Path) -> list[str]:
    """The `docker buildx build` command line of a plan (checked as it is read)."""
    repository, tag, base = _text(plan, "repository"), _text(plan, "tag"), _text(plan, "base")
    if not _REPOSITORY.fullmatch(repository) or not _TAG.fullmatch(tag):
        msg = f"the build plan's image '{repository}:{tag}' is not a PR image reference"
        raise InputError(msg)
    head = _text(plan, "head")
    if not _COMMIT.fullmatch(head) or not tag.endswith(head[:12]):
        msg = f"the build plan's head '{head}' is not the commit its tag names"
        raise InputError(msg)
    dockerfile = _inside(checkout, _text(plan, "dockerfile"), "Dockerfile")
    if not dockerfile.is_file():
        msg = f"the PR head has no Dockerfile {plan['dockerfile']}"
        raise InputError(msg)
    context = _inside(checkout, _text(plan, "context"), "context")
    args = plan.get("args")
    if not isinstance(args, dict) or not all(
        isinstance(k, str) and _ARG.fullmatch(k) and isinstance(v, str) for k, v in args.items()
    ):
        msg = "the build plan's 'args' are not NAME: value build arguments"
        raise InputError(msg)
    labels = {
        "org.opencontainers.image.revision": head,
        "org.opencontainers.image.base.name": base,
        "org.opencontainers.image.description": f"pull request #{plan.get('pr')} at {head}",
    }
    digest = base.partition("@")[2]
    if _DIGEST.fullmatch(digest):
        labels["org.opencontainers.image.base.digest"] = digest
    argv = ["docker", "buildx", "build", "--file", str(dockerfile)]
    for name, value in {"BASE_IMAGE": base, **args}.items():
        argv += ["--build-arg", f"{name}={value}"]
    for name, value in labels.items():
        argv += ["--label", f"{name}={value}"]
    argv += ["--tag", f"{repository}:{tag}", "--provenance=false", "--push"]
    return [*argv, "--metadata-file", str(metadata), str(context)]


def _framed_run(argv: Sequence[str], env: Mapping[str, str], *, stdin: str | None = None) -> int:
    """Run a tool with its output between `::stop-commands::` frames; its exit status."""
    token = token_for(" ".join(argv))
    say(f"[{PROGRAM}] {' '.join(argv)}")
    print(f"::stop-commands::{token}", flush=True)
    try:
        done = subprocess.run(
            list(argv),
            input=stdin,
            text=True,
            env=dict(env),
            timeout=BUILD_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        print(f"::{token}::", flush=True)
        msg = f"{argv[0]} {argv[1]}: {exc}"
        raise Infrastructure(msg) from None
    print(f"::{token}::", flush=True)
    return done.returncode


def _append(variable: str, text: str, environ: Mapping[str, str]) -> None:
    if environ.get(variable):
        with Path(environ[variable]).open("a", encoding="utf-8") as out:
            out.write(text)


def build(plan: Mapping[str, object], checkout: Path, environ: Mapping[str, str]) -> str:
    """Log in, build, push and log out; the pushed digest."""
    scratch = Path(tempfile.mkdtemp(prefix="sglang-ci-build-", dir=environ.get("RUNNER_TEMP")))
    try:
        config = scratch / "docker-config"
        config.mkdir(mode=0o700)
        metadata = scratch / "metadata.json"
        argv = docker_argv(plan, checkout, metadata)
        registry = str(plan["repository"]).split("/", 1)[0]
        env = {**environ, "DOCKER_CONFIG": str(config)}
        for secret in (USER_ENV, TOKEN_ENV):
            env.pop(secret, None)  # the build's own environment holds no credential
        user, token = environ.get(USER_ENV, ""), environ.get(TOKEN_ENV, "")
        if token:
            if not user:
                msg = f"{TOKEN_ENV} is set without {USER_ENV}: the push credential is both"
                raise InputError(msg)
            login = ["docker", "login", registry, "--username", user, "--password-stdin"]
            if _framed_run(login, env, stdin=token + "\n") != 0:
                msg = f"docker login {registry} failed: is {TOKEN_ENV} the push credential?"
                raise Infrastructure(msg)
        else:
            say(f"[{PROGRAM}] no {TOKEN_ENV}: pushing to {registry} without credentials")
        try:
            status = _framed_run(argv, env)
        finally:
            if token:
                _framed_run(["docker", "logout", registry], env)
        if status != 0:
            msg = f"docker buildx build exited {status}: the image was not built and pushed"
            raise LaunchError(msg)
        return _digest(metadata)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _digest(metadata: Path) -> str:
    try:
        data = json.loads(metadata.read_text(encoding="utf-8"))
        digest = data["containerimage.digest"]
    except (OSError, ValueError, KeyError, TypeError):
        msg = f"the build wrote no image digest to {metadata.name}"
        raise Infrastructure(msg) from None
    if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
        msg = f"the build's image digest {digest!r} is not a sha256 digest"
        raise Infrastructure(msg)
    return digest


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print(USAGE, file=sys.stderr)
        return InputError.return_code
    try:
        try:
            plan = json.loads(Path(args[0]).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            msg = f"{args[0]}: not a build plan ({exc})"
            raise InputError(msg) from None
        if not isinstance(plan, dict):
            msg = f"{args[0]}: not a build plan (not an object)"
            raise InputError(msg)
        checkout = Path(args[1])
        if not checkout.is_dir():
            msg = f"{args[1]}: the PR head's checkout is not a directory"
            raise InputError(msg)
        environ = os.environ
        digest = build(plan, checkout, environ)
        image = f"{plan['repository']}@{digest}"
        _append("GITHUB_OUTPUT", f"digest={digest}\n", environ)
        _append(
            "GITHUB_STEP_SUMMARY",
            f"### The pull request's image\n\nBuilt and pushed `{plan['repository']}:"
            f"{plan['tag']}` as `{image}`.\n\n",
            environ,
        )
        say(f"[{PROGRAM}] pushed {image}")
    except LaunchError as exc:
        return error(PROGRAM, exc)
    except Exception as exc:
        return bug(PROGRAM, exc, None)
    return 0
