"""The environment variables the launcher reads, validated once into `Knobs`.

The launcher reads them and never changes or exports them: the server and the clients
inherit the caller's environment untouched. An empty value counts as unset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.core.commands import Where
from generator.core.exits import InputError
from generator.core.knob_table import DEFAULTS, LOGS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")
_INTEGER = re.compile(r"[0-9]+")


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
    model_downloads: Path | None = None  # MODEL_DOWNLOADS: MODEL_CACHE is only read

    @property
    def cache(self) -> Path | None:
        """Where the server's models live: MODEL_DOWNLOADS when set, else MODEL_CACHE."""
        return self.model_downloads if self.model_downloads is not None else self.model_cache

    @property
    def where(self) -> Where:
        return Where(
            python=self.python,
            port=str(self.port),
            logs=str(self.log_dir),
            model_cache=None if self.cache is None else str(self.cache),
            root=str(self.root),
        )


def read_knobs(environ: Mapping[str, str], cwd: Path, root: Path) -> Knobs:
    """Every knob, or InputError naming the first invalid one. Relative paths are resolved
    against `cwd` (absolute), because evaluators run in directories of their own; `root` is
    the checkout the launcher runs from (its scripts/)."""
    results = cwd / _text(environ, "RESULTS_DIR")
    logs = environ.get("LOG_DIR")
    summary = environ.get("GITHUB_STEP_SUMMARY")
    cache = environ.get("MODEL_CACHE")
    downloads = environ.get("MODEL_DOWNLOADS")
    for name, value in (("MODEL_CACHE", cache), ("MODEL_DOWNLOADS", downloads)):
        if value and not Path(value).is_absolute():
            msg = f"{name} must be an absolute path, got {value!r}"
            raise InputError(msg)
    if downloads and not cache:
        msg = "MODEL_DOWNLOADS is set without MODEL_CACHE (the cache it reads)"
        raise InputError(msg)
    return Knobs(
        python=_text(environ, "PYTHON"),
        port=_port(environ),
        ready_timeout_s=_seconds(environ, "READY_TIMEOUT_S"),
        ready_poll_s=_seconds(environ, "READY_POLL_S"),
        stop_grace_s=_seconds(environ, "SERVER_STOP_GRACE_S"),
        point_timeout_s=_positive(environ, "POINT_TIMEOUT_S"),
        max_restarts=_count(environ, "MAX_SERVER_RESTARTS"),
        results_dir=results,
        log_dir=cwd / logs if logs else results / LOGS,
        step_summary=cwd / summary if summary else None,
        runner_temp=cwd / temp if (temp := environ.get("RUNNER_TEMP")) else None,
        model_cache=Path(cache) if cache else None,
        root=root,
        environ=dict(environ),
        model_downloads=Path(downloads) if downloads else None,
    )


def _text(environ: Mapping[str, str], name: str) -> str:
    """The variable, or its default when it is unset or empty."""
    return environ.get(name) or DEFAULTS[name]


def _port(environ: Mapping[str, str]) -> int:
    text = _text(environ, "SGLANG_PORT")
    if not _INTEGER.fullmatch(text) or not 1 <= int(text) <= 65535:
        msg = f"SGLANG_PORT must be a port number from 1 to 65535, got {text!r}"
        raise InputError(msg)
    return int(text)


def _seconds(environ: Mapping[str, str], name: str) -> float:
    text = _text(environ, name)
    if not _NUMBER.fullmatch(text):
        msg = f"{name} must be a number of seconds such as 5 or 0.5, got {text!r}"
        raise InputError(msg)
    return float(text)


def _positive(environ: Mapping[str, str], name: str) -> float | None:
    text = environ.get(name)
    if not text:
        return None
    if not _NUMBER.fullmatch(text) or float(text) <= 0:
        msg = f"{name} must be a positive number of seconds such as 600 or 0.5, got {text!r}"
        raise InputError(msg)
    return float(text)


def _count(environ: Mapping[str, str], name: str) -> int:
    text = _text(environ, name)
    if not _INTEGER.fullmatch(text):
        msg = f"{name} must be a whole number such as 0 or 1, got {text!r}"
        raise InputError(msg)
    return int(text)
