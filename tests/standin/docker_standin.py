"""Stand-in for the Docker CLI: `docker run` and `docker rm --force`, enough for the
runner-side scripts (scripts/run_in_container.py). Standard library only.

`docker run [OPTIONS] IMAGE [COMMAND] [ARG...]` parses the options the real CLI takes for
these scripts, in both `--opt=value` and `--opt value` forms (an unknown flag exits 125
with `unknown flag: --x`, as the real one does), records the call, and runs COMMAND in
place of a container: on this machine, in `--workdir`, with the environment a container
of IMAGE gets, which is the image's own (from $DOCKER_STANDIN_IMAGES) plus each `--env`
(`NAME` takes the CLI's value, `NAME=VALUE` that value), and nothing of the CLI's own
environment otherwise. `SGLANG_STANDIN_IMAGE` is the image reference as given (the
stand-in server reads it for its per-digest knobs). Volumes and devices are recorded,
not mounted: the host's paths are the container's.

$DOCKER_STANDIN_IMAGES is a JSON file `{"*": {"env": {...}}, "<image reference or
digest>": {"env": {...}}}`: "*" applies to every image, then the image's own entry
(looked up by the whole reference, then by its `sha256:` digest). An image with neither
entry is pulled from its registry when that is a loopback one (an image built on the
runners, docker_build.py): it runs what its base runs (the entry of the digest its
`org.opencontainers.image.base.digest` label names), with its config's `Env` on top.
Any other image is not pulled: exit 125 as for a manifest the registry does not know.

`docker buildx build`, `docker login` and `docker logout` are docker_build.py's.

Each call appends {"command", "argv", "name", "image", "devices", "env"} as one JSON line
to $DOCKER_STANDIN_RECORD ("env": the names set in the container). `run --name N` keeps
its pid in $DOCKER_STANDIN_STATE/N while it runs; `rm --force N` kills that process
group (a container left behind by a cancelled run) and removes the entry.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import urllib.request
from pathlib import Path
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.standin import docker_build
else:
    import docker_build  # run as a script: its directory is on sys.path

FLAGS = {"--rm", "--init", "--privileged", "--interactive", "-i", "--tty", "-t"}
VALUES = {
    "--name",
    "--device",
    "--volume",
    "-v",
    "--workdir",
    "-w",
    "--env",
    "-e",
    "--ipc",
    "--group-add",
    "--cap-add",
    "--security-opt",
    "--ulimit",
    "--shm-size",
    "--network",
    "--user",
}
ALIASES = {"-v": "--volume", "-w": "--workdir", "-e": "--env"}


def note(line: dict[str, Any]) -> None:
    path = os.environ.get("DOCKER_STANDIN_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def state(name: str) -> Path | None:
    folder = os.environ.get("DOCKER_STANDIN_STATE")
    return Path(folder, name) if folder else None


def parse_run(args: list[str]) -> tuple[dict[str, list[str]], set[str], str, list[str]]:
    options: dict[str, list[str]] = {}
    flags: set[str] = set()
    i = 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        key, eq, value = arg.partition("=")
        if key in FLAGS and not eq:
            flags.add(key)
            i += 1
            continue
        if key not in VALUES:
            print(f"unknown flag: {key}", file=sys.stderr)
            print("See 'docker run --help'.", file=sys.stderr)
            raise SystemExit(125)
        if not eq:
            if i + 1 >= len(args):
                print(f"flag needs an argument: '{key}' in {key}", file=sys.stderr)
                raise SystemExit(125)
            value, i = args[i + 1], i + 2
        else:
            i += 1
        options.setdefault(ALIASES.get(key, key), []).append(value)
    if i >= len(args):
        print('"docker run" requires at least 1 argument.', file=sys.stderr)
        raise SystemExit(125)
    return options, flags, args[i], args[i + 1 :]


def image_env(image: str) -> dict[str, str] | None:
    path = os.environ.get("DOCKER_STANDIN_IMAGES")
    table: dict[str, Any] = json.loads(Path(path).read_text("utf-8")) if path else {}
    own = table.get(image) or table.get(image.partition("@")[2])
    if own is None:
        pulled = pull_config(image)
        base = table.get(pulled.get("Labels", {}).get(BASE_LABEL, "")) if pulled else None
        if pulled is None or base is None:
            return None
        env = dict(e.partition("=")[::2] for e in pulled.get("Env") or [])
        own = {"env": {**base.get("env", {}), **env}}
    return {**table.get("*", {}).get("env", {}), **own.get("env", {})}


BASE_LABEL = "org.opencontainers.image.base.digest"


def pull_config(image: str) -> dict[str, Any] | None:
    """The config (`config` of the image config) of `registry/name@digest` from a loopback
    registry, or None when it has none such."""
    name, at, digest = image.partition("@")
    host, _, repository = name.partition("/")
    if not at or not re.fullmatch(r"(127\.0\.0\.1|localhost):[0-9]+", host):
        return None
    accept = "application/vnd.oci.image.manifest.v1+json"

    def get(path: str) -> dict[str, Any]:
        request = urllib.request.Request(
            f"http://{host}/v2/{repository}/{path}", headers={"Accept": accept}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            data: dict[str, Any] = json.loads(answer.read())
            return data

    try:
        manifest = get(f"manifests/{digest}")
        config = get(f"blobs/{manifest['config']['digest']}")
    except (OSError, ValueError, KeyError):
        return None
    inner: dict[str, Any] = config.get("config") or {}
    return inner


def run(args: list[str]) -> int:
    options, _flags, image, command = parse_run(args)
    base = image_env(image)
    name = (options.get("--name") or [""])[-1]
    env_names = []
    env = dict(base or {})
    for item in options.get("--env", []):
        key, eq, value = item.partition("=")
        if eq:
            env[key] = value
        elif key in os.environ:
            env[key] = os.environ[key]
        env_names.append(key)
    env["SGLANG_STANDIN_IMAGE"] = image
    note(
        {
            "command": "run",
            "argv": args,
            "name": name,
            "image": image,
            "devices": options.get("--device", []),
            "env": sorted(env_names),
        }
    )
    if base is None:
        print(f"Unable to find image '{image}' locally", file=sys.stderr)
        print("docker: Error response from daemon: manifest unknown.", file=sys.stderr)
        return 125
    if not command:
        print("docker: Error response from daemon: no command specified.", file=sys.stderr)
        return 125
    where = state(name) if name else None
    if where is not None:
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_text(str(os.getpid()), encoding="utf-8")
    workdir = (options.get("--workdir") or [str(Path.cwd())])[-1]
    os.chdir(workdir)
    os.setsid()  # a container is a world of its own: `rm --force` stops only it
    os.execvpe(command[0], command, env)
    return 127  # not reached


def rm(args: list[str]) -> int:
    names = [a for a in args if not a.startswith("-")]
    note({"command": "rm", "argv": args, "name": names[0] if names else ""})
    code = 0
    for name in names:
        where = state(name)
        if where is None or not where.exists():
            print(f"Error response from daemon: No such container: {name}", file=sys.stderr)
            code = 1
            continue
        pid = int(where.read_text("utf-8"))
        try:
            if os.getpgid(pid) == pid:  # still the session this stand-in started
                os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        where.unlink()
        print(name)
    return code


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["run"]:
        return run(args[1:])
    if args[:1] == ["rm"]:
        return rm(args[1:])
    if args[:2] == ["buildx", "build"] or args[:1] in (["login"], ["logout"]):
        if args[0] == "buildx":
            return docker_build.build(args[2:])
        return docker_build.login(args[1:]) if args[0] == "login" else docker_build.logout(args[1:])
    print(f"docker: '{' '.join(args[:1])}' is not a docker command.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
