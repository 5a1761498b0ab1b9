"""The one strict JSON reader of files we did not write in this process (records, job and
case files, manifests, verdicts, matrices): standard library only, as the launcher uses it.

It refuses, with a one-line reason, what Python's `json` would take and another reader
(DuckDB, jq, a browser) would not, or would read otherwise: a byte order mark, bytes that
are not UTF-8 (an encoded lone surrogate among them), a `\\ud800` escape without its pair,
`NaN`/`Infinity` and numbers past a float's range (`1e309`, which `json` reads as
infinity), nesting deeper than MAX_DEPTH, and a file larger than its limit. A symbolic
link is never followed (`O_NOFOLLOW`), and a file that is not a regular file (a FIFO, a
device) is never opened for reading.
"""

from __future__ import annotations

import codecs
import errno
import json
import math
import os
import re
import stat
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

# Records nest five levels deep, matrices and verdicts eight: 64 leaves room and keeps
# every recursive reader after this one (jsonschema, the commands) far from its limit.
MAX_DEPTH = 64
# A record is a few KiB; verdicts or a matrix of a year's runs a few MiB.
MAX_BYTES = 64 * 1024 * 1024
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonRefused(ValueError):
    """A file or text that is not strict JSON: its message is one line."""


def _constant(name: str) -> float:
    msg = f"non-finite number {name} (write null)"
    raise JsonRefused(msg)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else text[:21] + "..."
        msg = f"number {shown} is beyond a float's range (write null or a finite number)"
        raise JsonRefused(msg)
    return value


def _check(data: object) -> None:
    """Depth and lone surrogates, walked without recursion."""
    stack: list[tuple[object, int]] = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            if depth > MAX_DEPTH:
                msg = f"nested deeper than {MAX_DEPTH} levels"
                raise JsonRefused(msg)
            for key, value in item.items():
                if _SURROGATE.search(key):
                    msg = "a key holds a lone surrogate (\\ud800-\\udfff without its pair)"
                    raise JsonRefused(msg)
                stack.append((value, depth + 1))
        elif isinstance(item, list):
            if depth > MAX_DEPTH:
                msg = f"nested deeper than {MAX_DEPTH} levels"
                raise JsonRefused(msg)
            stack.extend((value, depth + 1) for value in item)
        elif isinstance(item, str) and _SURROGATE.search(item):
            msg = "a string holds a lone surrogate (\\ud800-\\udfff without its pair)"
            raise JsonRefused(msg)


def loads(raw: bytes | str) -> Any:  # noqa: ANN401 (arbitrary JSON, as json.loads)
    """`raw` parsed as strict JSON (see the module's text); JsonRefused otherwise."""
    if isinstance(raw, bytes):
        if raw.startswith(codecs.BOM_UTF8):
            msg = "starts with a byte order mark (write UTF-8 without one)"
            raise JsonRefused(msg)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            msg = f"not UTF-8 (byte {exc.start})"
            raise JsonRefused(msg) from None
    else:
        text = raw
        if text.startswith("\ufeff"):
            msg = "starts with a byte order mark (write UTF-8 without one)"
            raise JsonRefused(msg)
    try:
        data = json.loads(text, parse_constant=_constant, parse_float=_float)
    except JsonRefused:
        raise
    except RecursionError:
        msg = f"nested deeper than {MAX_DEPTH} levels"
        raise JsonRefused(msg) from None
    except ValueError as exc:
        msg = f"not valid JSON: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
        raise JsonRefused(msg) from None
    _check(data)
    return data


def read_bytes(path: Path, max_bytes: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file `path`, never through a symbolic link (OSError
    otherwise; JsonRefused when larger than `max_bytes`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            msg = "a symbolic link (never followed)"
            raise JsonRefused(msg) from None
        raise
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            msg = "not a regular file"
            raise JsonRefused(msg)
        if info.st_size > max_bytes:
            msg = f"larger than {max_bytes:,} bytes ({info.st_size:,})"
            raise JsonRefused(msg)
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        msg = f"larger than {max_bytes:,} bytes"
        raise JsonRefused(msg)
    return data


def load(path: Path, max_bytes: int = MAX_BYTES) -> Any:  # noqa: ANN401 (as loads)
    """The strict JSON of the regular file `path` (see `read_bytes` and `loads`)."""
    return loads(read_bytes(path, max_bytes))


def problem(path: Path, max_bytes: int = MAX_BYTES) -> str | None:
    """Why `path` cannot be read as strict JSON, in one line, or None when it can."""
    try:
        load(path, max_bytes)
    except JsonRefused as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return None
