"""The checks every job and case gets for its server: model, image, GPUs, container,
server args and env."""

from __future__ import annotations

import itertools
import re
from typing import Any

from generator.launch import field_checks as field
from generator.launch.exits import InputError

# The flags the launcher gives every server (commands.server_argv). SGLang's parser takes a
# unique prefix of a flag for the flag (`--hos` is `--host`), so a job may carry none of
# them, written out or abbreviated: each would rebind the server or swap its model.
LAUNCHER_FLAGS = ("--host", "--port", "--model-path", "--model")
_REVISION = re.compile(r"[0-9a-f]{40}")


def server_fields(obj: dict[str, Any], where: str) -> None:
    field.string(obj, "id", where, ident=True)
    field.string(obj, "model_path", where)
    revision = obj.get("model_revision")
    if revision is not None and not (isinstance(revision, str) and _REVISION.fullmatch(revision)):
        msg = f"{where}: 'model_revision' must be a Hugging Face commit (40 hex digits)"
        raise InputError(msg)
    built = obj.get("image_build")
    if built is not None and not (
        isinstance(built, dict)
        and set(built) == {"pr", "head", "base", "dockerfile"}
        and type(built["pr"]) is int
        and isinstance(built["head"], str)
        and _REVISION.fullmatch(built["head"])
        and all(isinstance(built[k], str) and len(built[k]) <= 1000 for k in ("base", "dockerfile"))
    ):
        msg = f"{where}: 'image_build' must name the pr, head commit, base and dockerfile"
        raise InputError(msg)
    models = [obj["model_path"]]
    args = obj.get("server_args")
    if isinstance(args, list):
        models += [v for f, v in itertools.pairwise(args) if f in field.MODEL_FLAGS]
    for model in models:
        problem = field.model_path_problem(str(model))
        if problem:
            msg = f"{where}: {problem}"
            raise InputError(msg)
    field.string(obj, "spec", where)
    for key in ("image", "runner", "server_mode"):
        value = obj.get(key, "")
        if not isinstance(value, str) or len(value) > field.MAX_TEXT_CHARS or "\0" in value:
            msg = f"{where}: '{key}' must be a string (empty until pinned)"
            raise InputError(msg)
    gpus = field.number(obj, "gpus", where, integer=True)
    if not 1 <= gpus <= field.MAX_GPUS:
        msg = f"{where}: 'gpus' is {gpus:g}; a server needs 1 to {field.MAX_GPUS} GPUs"
        raise InputError(msg)
    draft = obj.get("draft_tokens")
    if draft is not None and field.number(obj, "draft_tokens", where, integer=True) < 1:
        msg = f"{where}: 'draft_tokens' must be at least 1"
        raise InputError(msg)
    if "timeout_minutes" in obj and field.number(obj, "timeout_minutes", where, integer=True) < 1:
        msg = f"{where}: 'timeout_minutes' must be at least 1"
        raise InputError(msg)
    container = obj.get("container")
    if not isinstance(container, dict):
        msg = f"{where}: 'container' must be an object with a list of 'options'"
        raise InputError(msg)
    field.strings(container.get("options"), "container 'options'", where)
    for key in ("model_cache", "allocation_file"):
        value = container.get(key)
        if value is not None and (not isinstance(value, str) or not value.startswith("/")):
            msg = f"{where}: container '{key}' must be an absolute path or null"
            raise InputError(msg)
    args = field.strings(obj.get("server_args"), "'server_args'", where)
    for token in args:
        name = token.partition("=")[0]
        owned = [f for f in LAUNCHER_FLAGS if len(name) > 2 and f.startswith(name)]
        if name.startswith("--") and owned:
            said = "is" if name in owned else f"abbreviates {owned[0]} for SGLang, which is"
            msg = (
                f"{where}: server_args: {name} {said} set by the launcher on every server: "
                "remove it from the job"
            )
            raise InputError(msg)
    spellings = obj.get("server_spellings", [])
    if not isinstance(spellings, list) or not all(
        isinstance(s, list)
        and len(s) == 4
        and all(isinstance(t, str) for t in s)
        and s[0].startswith("--")
        and s[1].startswith("--")
        and s[2]
        for s in spellings
    ):
        msg = (
            f"{where}: 'server_spellings' must be a list of [flag, name, first release, "
            'last release or ""]'
        )
        raise InputError(msg)
    field.check_env(obj, where)
