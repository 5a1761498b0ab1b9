"""The stand-in Docker CLI's `buildx build`, `login` and `logout` (tests/standin/
docker_standin.py), for the PR image's builder. Standard library and skopeo only.

`docker buildx build [OPTIONS] CONTEXT` takes the options the builder passes (`--file`,
`--build-arg`, `--label`, `--tag`, `--push`, `--provenance`, `--metadata-file`, in both
`--opt=value` and `--opt value` forms; an unknown flag exits 1 as buildx does) and builds
for real what it can without a container runtime: the Dockerfile's ARG, FROM (one stage,
`${NAME}` and `$NAME` from the build arguments and ARG defaults), ENV, LABEL, WORKDIR,
COPY and ADD are followed; RUN is recorded, not run. The image is a real OCI image: the
base's manifest and layers as the registry holds them (read with `skopeo copy`), one more
layer with the context's files (a tar written deterministically: sorted, mtime 0, owner
0), and a config with the base's env and labels, the Dockerfile's and the `--label`s. It
is pushed with `skopeo copy` (the `docker login` credentials of `$DOCKER_CONFIG` as its
authfile) and the digest the registry got goes to the metadata file as
`containerimage.digest`, as buildx writes it. The same Dockerfile, context, base and
arguments give the same digest. Without `--push` it fails: there is no local image store.

`docker login REGISTRY --username U --password-stdin` keeps the credential in
`$DOCKER_CONFIG/config.json` (as docker does without a credential helper) and refuses
one that `$DOCKER_STANDIN_CREDENTIALS` (`{"registry": "user:password"}`) does not list;
`docker logout REGISTRY` removes it. Each call appends a line to $DOCKER_STANDIN_RECORD
(never the password).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

BUILD_VALUES = {"--file", "-f", "--build-arg", "--label", "--tag", "-t", "--metadata-file",
                "--provenance", "--platform"}  # fmt: skip
BUILD_FLAGS = {"--push", "--pull", "--no-cache"}
ALIASES = {"-f": "--file", "-t": "--tag"}
CONFIG = "application/vnd.oci.image.config.v1+json"
MANIFEST = "application/vnd.oci.image.manifest.v1+json"
LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def note(line: dict[str, Any]) -> None:
    path = os.environ.get("DOCKER_STANDIN_RECORD")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")


def fail(message: str, code: int = 1) -> int:
    print(f"ERROR: {message}", file=sys.stderr)
    return code


def _config_file() -> Path:
    folder = Path(os.environ.get("DOCKER_CONFIG") or Path.home() / ".docker")
    return folder / "config.json"


def _auths() -> dict[str, Any]:
    path = _config_file()
    data: dict[str, Any] = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    return data


def login(args: list[str]) -> int:
    registry = next((a for a in args if not a.startswith("-")), "")
    user = ""
    if "--username" in args:
        user = args[args.index("--username") + 1]
    if "--password-stdin" not in args or not user or not registry:
        print("Must provide --username with --password-stdin", file=sys.stderr)
        return 1
    password = sys.stdin.read().rstrip("\n")
    note({"command": "login", "registry": registry, "username": user})
    known = json.loads(os.environ.get("DOCKER_STANDIN_CREDENTIALS") or "{}")
    if registry in known and known[registry] != f"{user}:{password}":
        print(f"Error response from daemon: login to {registry}: unauthorized", file=sys.stderr)
        return 1
    data = _auths()
    auth = base64.b64encode(f"{user}:{password}".encode()).decode()
    data.setdefault("auths", {})[registry] = {"auth": auth}
    _config_file().parent.mkdir(parents=True, exist_ok=True)
    _config_file().write_text(json.dumps(data), "utf-8")
    print("Login Succeeded")
    return 0


def logout(args: list[str]) -> int:
    registry = next((a for a in args if not a.startswith("-")), "")
    note({"command": "logout", "registry": registry})
    data = _auths()
    if data.get("auths", {}).pop(registry, None) is not None:
        _config_file().write_text(json.dumps(data), "utf-8")
    print(f"Removing login credentials for {registry}")
    return 0


def _parse(args: list[str]) -> tuple[dict[str, list[str]], set[str], list[str]]:
    options: dict[str, list[str]] = {}
    flags: set[str] = set()
    rest: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("-"):
            rest.append(arg)
            i += 1
            continue
        key, eq, value = arg.partition("=")
        if key in BUILD_FLAGS and not eq:
            flags.add(key)
            i += 1
            continue
        if key not in BUILD_VALUES:
            raise SystemExit(fail(f"unknown flag: {key}"))
        if not eq:
            if i + 1 >= len(args):
                raise SystemExit(fail(f"flag needs an argument: {key}"))
            value, i = args[i + 1], i + 2
        else:
            i += 1
        options.setdefault(ALIASES.get(key, key), []).append(value)
    return options, flags, rest


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuations joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    found = []
    for raw in joined.splitlines():
        line = raw.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def _substitute(text: str, values: dict[str, str]) -> str:
    return _VAR.sub(lambda m: values.get(m[1] or m[2], ""), text)


def _pairs(text: str) -> dict[str, str]:
    """`K=V K2="V 2"` (ENV, LABEL) as a mapping."""
    out = {}
    for item in shlex.split(text):
        key, _, value = item.partition("=")
        out[key] = value
    return out


def _blob(layout: Path, data: bytes) -> str:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    (layout / "blobs" / "sha256" / digest.removeprefix("sha256:")).write_bytes(data)
    return digest


def _context_layer(context: Path) -> tuple[bytes, str]:
    """The context's files as a deterministic gzipped tar, and its uncompressed digest."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(p for p in context.rglob("*") if p.is_file() and ".git" not in p.parts):
            data = path.read_bytes()
            info = tarfile.TarInfo("context/" + path.relative_to(context).as_posix())
            info.size, info.mtime, info.mode, info.uid, info.gid = len(data), 0, 0o644, 0, 0
            tar.addfile(info, io.BytesIO(data))
    tar_bytes = raw.getvalue()
    return gzip.compress(tar_bytes, mtime=0), "sha256:" + hashlib.sha256(tar_bytes).hexdigest()


def _skopeo(*args: str) -> subprocess.CompletedProcess[str]:
    skopeo = shutil.which("skopeo") or "skopeo"
    return subprocess.run(
        [skopeo, "--insecure-policy", *args], capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip


def build(args: list[str]) -> int:
    options, flags, rest = _parse(args)
    if len(rest) != 1:
        return fail('"docker buildx build" requires exactly 1 argument')
    context = Path(rest[0])
    dockerfile = Path((options.get("--file") or [str(context / "Dockerfile")])[-1])
    tags = options.get("--tag", [])
    record: dict[str, Any] = {"command": "buildx build", "argv": args, "tags": tags}
    if not context.is_dir() or not dockerfile.is_file():
        note(record)
        return fail(f"failed to read dockerfile or context: {dockerfile}, {context}")
    if "--push" not in flags or len(tags) != 1:
        note(record)
        return fail("the stand-in keeps no local image store: build with --push and one --tag")
    given = dict(a.partition("=")[::2] for a in options.get("--build-arg", []))
    values: dict[str, str] = {}
    base = ""
    env: dict[str, str] = {}
    labels: dict[str, str] = {}
    runs: list[str] = []
    for word, rest_text in _instructions(dockerfile.read_text("utf-8")):
        if word == "ARG":
            name, eq, default = rest_text.partition("=")
            values[name] = given.get(name, default if eq else values.get(name, ""))
        elif word == "FROM":
            if base:
                note(record)
                return fail("the stand-in builds one stage: a second FROM")
            base = _substitute(rest_text.split()[0], values)
        elif word == "ENV":
            env |= {k: _substitute(v, values) for k, v in _pairs(rest_text).items()}
        elif word == "LABEL":
            labels |= {k: _substitute(v, values) for k, v in _pairs(rest_text).items()}
        elif word == "RUN":
            runs.append(_substitute(rest_text, {**values, **env}))
        elif word not in ("COPY", "ADD", "WORKDIR", "USER", "ENTRYPOINT", "CMD", "EXPOSE"):
            note(record)
            return fail(f"dockerfile parse error: unknown instruction: {word}")
    labels |= dict(a.partition("=")[::2] for a in options.get("--label", []))
    record |= {"base": base, "build_args": sorted(given), "runs": runs}
    if not base:
        note(record)
        return fail("no FROM in the Dockerfile")
    with tempfile.TemporaryDirectory(prefix="docker-standin-build-") as scratch:
        layout = Path(scratch) / "layout"
        pulled = _skopeo("copy", "--quiet", "--src-tls-verify=false", f"docker://{base}",
                         f"oci:{layout}:base")  # fmt: skip
        if pulled.returncode:
            note(record)
            return fail(f"failed to resolve source metadata for {base}: {pulled.stderr.strip()}")
        index = json.loads((layout / "index.json").read_text("utf-8"))
        [described] = index["manifests"]
        blobs = layout / "blobs" / "sha256"
        manifest = json.loads((blobs / described["digest"].removeprefix("sha256:")).read_bytes())
        config = json.loads(
            (blobs / manifest["config"]["digest"].removeprefix("sha256:")).read_bytes()
        )
        layer, diff_id = _context_layer(context)
        layer_digest = _blob(layout, layer)
        inner = config.setdefault("config", {})
        base_env = dict(e.partition("=")[::2] for e in inner.get("Env") or [])
        inner["Env"] = [f"{k}={v}" for k, v in {**base_env, **env}.items()]
        inner["Labels"] = {**(inner.get("Labels") or {}), **labels}
        config.setdefault("rootfs", {"type": "layers", "diff_ids": []})["diff_ids"].append(diff_id)
        config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
        config_digest = _blob(layout, config_bytes)
        new = {
            "schemaVersion": 2,
            "mediaType": MANIFEST,
            "config": {"mediaType": CONFIG, "digest": config_digest, "size": len(config_bytes)},
            "layers": [
                *manifest["layers"],
                {"mediaType": LAYER, "digest": layer_digest, "size": len(layer)},
            ],
        }
        new_bytes = json.dumps(new, sort_keys=True, separators=(",", ":")).encode()
        new_digest = _blob(layout, new_bytes)
        index["manifests"] = [
            {"mediaType": MANIFEST, "digest": new_digest, "size": len(new_bytes),
             "annotations": {"org.opencontainers.image.ref.name": "built"}},
        ]  # fmt: skip
        (layout / "index.json").write_text(json.dumps(index), "utf-8")
        digest_file = Path(scratch) / "digest"
        auth = ["--dest-authfile", str(_config_file())] if _config_file().is_file() else []
        pushed = _skopeo("copy", "--quiet", "--dest-tls-verify=false", *auth,
                         "--digestfile", str(digest_file), f"oci:{layout}:built",
                         f"docker://{tags[0]}")  # fmt: skip
        if pushed.returncode:
            note(record)
            return fail(f"failed to push {tags[0]}: {pushed.stderr.strip()}")
        digest = digest_file.read_text("utf-8").strip()
    record |= {"pushed": f"{tags[0]}@{digest}", "authenticated": bool(auth)}
    note(record)
    metadata = options.get("--metadata-file")
    if metadata:
        Path(metadata[-1]).write_text(
            json.dumps({"containerimage.digest": digest, "image.name": tags[0]}), "utf-8"
        )
    print(f"#1 pushing {tags[0]} with digest {digest}")
    return 0
