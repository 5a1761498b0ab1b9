"""generator.core.knob_table: the launcher's environment knobs, one table (names, what an
unset one stands for) that the launcher, `sglang-ci explain` and docs/launchers.md read."""

from __future__ import annotations

import re
from pathlib import Path

from generator.core.knob_table import DEFAULTS, KNOBS, LOGS
from generator.launch.knobs import read_knobs

CWD = Path("/work/job")


def test_every_default_the_launcher_applies_is_the_one_of_the_table() -> None:
    knobs = read_knobs({}, CWD, CWD)
    assert DEFAULTS == {
        "PYTHON": "python3",
        "SGLANG_PORT": "30000",
        "READY_TIMEOUT_S": "3600",
        "READY_POLL_S": "5",
        "SERVER_STOP_GRACE_S": "5",
        "MAX_SERVER_RESTARTS": "1",
        "RESULTS_DIR": "results",
        "LOG_DIR": "$RESULTS_DIR/logs",
    }
    assert (knobs.python, str(knobs.port), str(knobs.max_restarts)) == (
        DEFAULTS["PYTHON"],
        DEFAULTS["SGLANG_PORT"],
        DEFAULTS["MAX_SERVER_RESTARTS"],
    )
    assert (knobs.ready_timeout_s, knobs.ready_poll_s, knobs.stop_grace_s) == (
        float(DEFAULTS["READY_TIMEOUT_S"]),
        float(DEFAULTS["READY_POLL_S"]),
        float(DEFAULTS["SERVER_STOP_GRACE_S"]),
    )
    assert knobs.log_dir == CWD / DEFAULTS["RESULTS_DIR"] / LOGS
    assert [k.name for k in KNOBS if k.default is None] == [
        "MODEL_CACHE",
        "MODEL_DOWNLOADS",
        "POINT_TIMEOUT_S",
        "RUNNER_TEMP",
        "GITHUB_STEP_SUMMARY",
        "HF_TOKEN",
    ]


def test_each_knob_is_one_environment_variable_named_once_with_a_meaning() -> None:
    names = [k.name for k in KNOBS]
    assert len(set(names)) == len(names) == 14
    assert all(re.fullmatch(r"[A-Z][A-Z0-9_]*", n) for n in names), names
    assert all(k.meaning and "\n" not in k.meaning for k in KNOBS)
    assert DEFAULTS["LOG_DIR"] == f"$RESULTS_DIR/{LOGS}"
