"""The environment variables the launcher reads, validated once into `Knobs`.

The launcher reads them and never changes or exports them: the server and the clients
inherit the caller's environment untouched. An empty value counts as unset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from generator.launch.commands import Where
from generator.launch.contract import InputError

_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")
_INTEGER = re.compile(r"[0-9]+")
# SIGTERM to SIGKILL of a stop. A cancelled GitHub job gets SIGINT, SIGTERM 7.5 s later
# and SIGKILL 2.5 s after that: the whole cleanup must fit in the first 7.5 s.
STOP_GRACE_S = "5"


@dataclass(frozen=True, kw_only=True)
class Knobs:
    python: str
    port: int
    ready_timeout_s: float
    ready_poll_s: float
    stop_grace_s: float
    point_timeout_s: float | None  # POINT_TIMEOUT_S: every point's timeout (unset: estimate)
    max_restarts: int
    results_dir: Path
    log_dir: Path
    step_summary: Path | None
    runner_temp: Path | None  # RUNNER_TEMP: where results go when RESULTS_DIR cannot be written
    model_cache: Path | None  # MODEL_CACHE: where model weights live (unset: hub ids)
    root: Path  # this checkout
    environ: Mapping[str, str]  # the launcher's environment, for provenance

    @property
    def where(self) -> Where:
        return Where(
            python=self.python,
            port=str(self.port),
            logs=str(self.log_dir),
            model_cache=None if self.model_cache is None else str(self.model_cache),
            root=str(self.root),
        )


def read_knobs(environ: Mapping[str, str], cwd: Path, root: Path) -> Knobs:
    """Every knob, or InputError naming the first invalid one. Relative paths are resolved
    against `cwd` (absolute), because evaluators run in directories of their own; `root` is
    the checkout the launcher runs from (its scripts/)."""
    results = cwd / _text(environ, "RESULTS_DIR", "results")
    logs = environ.get("LOG_DIR")
    summary = environ.get("GITHUB_STEP_SUMMARY")
    cache = environ.get("MODEL_CACHE")
    if cache and not Path(cache).is_absolute():
        raise InputError(f"MODEL_CACHE must be an absolute path, got {cache!r}")
    return Knobs(
        python=environ.get("PYTHON") or "python3",
        port=_port(environ),
        ready_timeout_s=_seconds(environ, "READY_TIMEOUT_S", "3600"),
        ready_poll_s=_seconds(environ, "READY_POLL_S", "5"),
        stop_grace_s=_seconds(environ, "SERVER_STOP_GRACE_S", STOP_GRACE_S),
        point_timeout_s=_positive(environ, "POINT_TIMEOUT_S"),
        max_restarts=_count(environ, "MAX_SERVER_RESTARTS", "1"),
        results_dir=results,
        log_dir=cwd / logs if logs else results / "logs",
        step_summary=cwd / summary if summary else None,
        runner_temp=cwd / temp if (temp := environ.get("RUNNER_TEMP")) else None,
        model_cache=Path(cache) if cache else None,
        root=root,
        environ=dict(environ),
    )


def _text(environ: Mapping[str, str], name: str, default: str) -> str:
    return environ.get(name) or default


def _port(environ: Mapping[str, str]) -> int:
    text = _text(environ, "SGLANG_PORT", "30000")
    if not _INTEGER.fullmatch(text) or not 1 <= int(text) <= 65535:
        raise InputError(f"SGLANG_PORT must be a port number from 1 to 65535, got {text!r}")
    return int(text)


def _seconds(environ: Mapping[str, str], name: str, default: str) -> float:
    text = _text(environ, name, default)
    if not _NUMBER.fullmatch(text):
        raise InputError(f"{name} must be a number of seconds such as 5 or 0.5, got {text!r}")
    return float(text)


def _positive(environ: Mapping[str, str], name: str) -> float | None:
    text = environ.get(name)
    if not text:
        return None
    if not _NUMBER.fullmatch(text) or float(text) <= 0:
        raise InputError(
            f"{name} must be a positive number of seconds such as 600 or 0.5, got {text!r}"
        )
    return float(text)


def _count(environ: Mapping[str, str], name: str, default: str) -> int:
    text = _text(environ, name, default)
    if not _INTEGER.fullmatch(text):
        raise InputError(f"{name} must be a whole number such as 0 or 1, got {text!r}")
    return int(text)
