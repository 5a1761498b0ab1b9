"""The launcher's environment knobs, one table (their values: knobs.py)."""

from __future__ import annotations

from dataclasses import dataclass


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
