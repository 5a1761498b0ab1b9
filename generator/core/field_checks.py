"""A job or case file's size and JSON, and its strings, numbers, model paths and env."""

from __future__ import annotations

import math
import re
from typing import Any

from generator.core import jsonread
from generator.core.exits import InputError
from generator.core.logtext import clip

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]*$")
ENV_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A job or case is one matrix entry, and a GitHub job output holds at most 1 MiB.
MAX_FILE_BYTES = 1024 * 1024
# Ids name log and result files (`<id>.server.log`, `<point id>.bench.jsonl`): NAME_MAX is
# 255 bytes, and the generator keeps its ids far below this (docs/launchers.md).
MAX_ID_CHARS = 200
MAX_POINTS = 256  # a dispatch's custom points at most (generator/expand/custom.py)
MAX_TOKENS = 4096  # server or client argv tokens
MAX_TEXT_CHARS = 65536  # any one string
MAX_GPUS = 64
# Server flags whose value is a model the server loads (besides --model-path).
MODEL_FLAGS = ("--speculative-draft-model-path", "--speculative-draft-model", "--tokenizer-path")
# A model the catalog names: a hub id or a relative path of plain ASCII segments, none of
# them `.` or `..` (so `Qwen/..` never names the model cache's root).
_MODEL_PATH = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9._-]+)*", re.ASCII)
_DOTS = re.compile(r"(?:^|/)\.{1,2}(?:/|$)")
MAX_MODEL_PATH = 300


def model_path_problem(value: str) -> str | None:
    """Why `value` cannot name a model the server loads, or None."""
    if len(value) > MAX_MODEL_PATH:
        return f"a model path is at most {MAX_MODEL_PATH} characters"
    if not _MODEL_PATH.fullmatch(value) or _DOTS.search(value):
        return (
            f"model path {value!r} is not a Hugging Face id or a relative path of ASCII "
            "letters, digits, '.', '_' and '-' (no '.' or '..' part)"
        )
    return None


def load_object(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        msg = f"cannot read JSON from {path}: {exc.strerror}"
        raise InputError(msg) from exc
    if len(raw) > MAX_FILE_BYTES:
        msg = f"{path}: more than {MAX_FILE_BYTES} bytes; a job or case is smaller"
        raise InputError(msg)
    try:
        data = jsonread.loads(raw)
    except jsonread.JsonRefused as exc:
        msg = f"cannot read JSON from {path}: {exc}"
        raise InputError(msg) from exc
    if not isinstance(data, dict):
        msg = f"{path}: the top level must be a JSON object"
        raise InputError(msg)
    return data


def string(obj: dict[str, Any], key: str, where: str, *, ident: bool = False) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        msg = f"{where}: '{key}' must be a non-empty string"
        raise InputError(msg)
    if len(value) > (MAX_ID_CHARS if ident else MAX_TEXT_CHARS):
        limit = MAX_ID_CHARS if ident else MAX_TEXT_CHARS
        msg = f"{where}: '{key}' is {len(value)} characters; at most {limit}"
        raise InputError(msg)
    if ident and not ID_RE.fullmatch(value):
        msg = f"{where}: '{key}' {clip(repr(value))} must match {ID_RE.pattern}"
        raise InputError(msg)
    return value


def strings(value: object, what: str, where: str) -> list[str]:
    """A list of at most MAX_TOKENS strings of at most MAX_TEXT_CHARS, none with NUL."""
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        msg = f"{where}: {what} must be a list of strings"
        raise InputError(msg)
    if len(value) > MAX_TOKENS:
        msg = f"{where}: {what} has {len(value)} items; at most {MAX_TOKENS}"
        raise InputError(msg)
    for item in value:
        if "\0" in item or len(item) > MAX_TEXT_CHARS:
            msg = f"{where}: {what} items must be at most {MAX_TEXT_CHARS} characters, without NUL"
            raise InputError(msg)
    return value


def number(obj: dict[str, Any], key: str, where: str, *, integer: bool) -> float:
    value = obj.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        msg = f"{where}: '{key}' must be a number"
        raise InputError(msg)
    if integer and not isinstance(value, int):
        msg = f"{where}: '{key}' must be an integer"
        raise InputError(msg)
    if not math.isfinite(value):
        msg = f"{where}: '{key}' must be finite"
        raise InputError(msg)
    return float(value)


def check_env(obj: dict[str, Any], where: str) -> None:
    env = obj.get("env")
    if not isinstance(env, dict):
        msg = f"{where}: 'env' must be an object"
        raise InputError(msg)
    for key, value in env.items():
        if not ENV_KEY_RE.fullmatch(key):
            msg = f"{where}: env key {key!r} is not a valid variable name"
            raise InputError(msg)
        if not isinstance(value, str) or "\0" in value:
            msg = f"{where}: env value of {key} must be a string without NUL"
            raise InputError(msg)
