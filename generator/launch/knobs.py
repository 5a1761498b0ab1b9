"""The environment variables the launcher reads, validated once into `Knobs`.

The launcher reads them and never changes or exports them: the server and the clients
inherit the caller's environment untouched. An empty value counts as unset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from generator.launch.commands import Where
from generator.launch.exits import InputError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

_NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?")
_INTEGER = re.compile(r"[0-9]+")


@dataclass(frozen=True, kw_only=True)
class Knob:
    """One environment variable: what an unset (or empty) one stands for, and what it does.
    `read_knobs`, `sglang-ci explain` and the table of docs/launchers.md read this."""

    name: str
    default: str | None  # None: unset, nothing stands in
    meaning: str


KNOBS = (
    Knob(
        name="PYTHON",
        default="python3",
        meaning="interpreter for the launcher itself, the server, the benchmark client, the "
        "few-shot evaluation and the version probe",
    ),
    Knob(name="SGLANG_PORT", default="30000", meaning="server port on 127.0.0.1 (1 to 65535)"),
    Knob(
        name="MODEL_CACHE",
        default=None,
        meaning="absolute path of the model cache; unset: the server gets the Hugging Face ids",
    ),
    Knob(
        name="MODEL_DOWNLOADS",
        default=None,
        meaning="absolute path of a per-job directory for the models MODEL_CACHE lacks; set "
        "(a pull request's run): MODEL_CACHE is only read, its complete snapshots are linked "
        "from here, the others downloaded here",
    ),
    Knob(
        name="READY_TIMEOUT_S",
        default="3600",
        meaning="longest wait for `/health` and `/v1/models` after each start (seconds)",
    ),
    Knob(name="READY_POLL_S", default="5", meaning="interval between readiness polls (seconds)"),
    # A cancelled GitHub job gets SIGINT, SIGTERM 7.5 s later and SIGKILL 2.5 s after that:
    # the whole cleanup must fit in the first 7.5 s.
    Knob(
        name="SERVER_STOP_GRACE_S",
        default="5",
        meaning="time between `SIGTERM` and `SIGKILL` when stopping processes (seconds); keep "
        "it below 7.5, GitHub's time between a cancel's `SIGINT` and `SIGTERM`",
    ),
    Knob(
        name="POINT_TIMEOUT_S",
        default=None,
        meaning="every benchmark point's timeout (a positive number of seconds); unset: each "
        "point's `estimate_minutes` x the job's `point_timeout_factor`",
    ),
    Knob(
        name="MAX_SERVER_RESTARTS",
        default="1",
        meaning="restarts allowed after the server dies mid-sweep (a whole number; benchmark only)",
    ),
    Knob(
        name="RESULTS_DIR",
        default="results",
        meaning="where records and `summary.md` are written (created if missing; a relative "
        "path is resolved against the launch directory)",
    ),
    Knob(
        name="RUNNER_TEMP",
        default=None,
        meaning="where the fallback directory is made when `RESULTS_DIR` cannot be written (set "
        "by GitHub; passed into the job's container, where it is mounted)",
    ),
    Knob(
        name="LOG_DIR",
        default="$RESULTS_DIR/logs",
        meaning="server logs, client logs and output, evaluator directories, download logs",
    ),
    Knob(
        name="GITHUB_STEP_SUMMARY",
        default=None,
        meaning="markdown summary file, appended to when set",
    ),
    Knob(
        name="HF_TOKEN",
        default=None,
        meaning="read by `hf download` and the tools, never by the launcher",
    ),
)
DEFAULTS = {k.name: k.default for k in KNOBS if k.default is not None}
LOGS = "logs"  # LOG_DIR's default, under RESULTS_DIR


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
