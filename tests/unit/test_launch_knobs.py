"""generator.launch.knobs: defaults, relative paths and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.core.exits import InputError
from generator.launch.knobs import read_knobs

CWD = Path("/work/job")
CHECKOUT = Path("/work/sglang-ci")


def test_defaults_apply_when_a_knob_is_unset_or_empty() -> None:
    knobs = read_knobs({"PYTHON": "", "SGLANG_PORT": ""}, CWD, CHECKOUT)
    assert (knobs.python, knobs.port, knobs.max_restarts) == ("python3", 30000, 1)
    assert (knobs.ready_timeout_s, knobs.ready_poll_s, knobs.stop_grace_s) == (3600, 5, 5)
    assert knobs.point_timeout_s is None
    assert (knobs.results_dir, knobs.log_dir) == (CWD / "results", CWD / "results/logs")
    assert knobs.step_summary is None
    assert knobs.where.port == "30000"
    assert (knobs.root, knobs.where.root) == (CHECKOUT, "/work/sglang-ci")


def test_relative_directories_are_resolved_against_the_launch_directory() -> None:
    knobs = read_knobs({"RESULTS_DIR": "out", "LOG_DIR": "logs", "READY_POLL_S": "0.05"}, CWD, CWD)
    assert (knobs.results_dir, knobs.log_dir, knobs.ready_poll_s) == (
        CWD / "out",
        CWD / "logs",
        0.05,
    )
    assert knobs.where.logs == "/work/job/logs"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("SGLANG_PORT", "65536"),
        ("SGLANG_PORT", " 30000"),
        ("READY_TIMEOUT_S", "nan"),
        ("READY_POLL_S", "-1"),
        ("SERVER_STOP_GRACE_S", "1e3"),
        ("MAX_SERVER_RESTARTS", "1.5"),
        ("POINT_TIMEOUT_S", "0"),
        ("POINT_TIMEOUT_S", "-5"),
        ("POINT_TIMEOUT_S", "5m"),
    ],
)
def test_an_invalid_knob_is_an_input_error_that_names_it(name: str, value: str) -> None:
    with pytest.raises(InputError, match=rf"^{name} must be .*, got '{value}'$"):
        read_knobs({name: value}, CWD, CWD)


def test_the_stop_grace_fits_in_a_github_cancel_and_point_timeout_s_overrides_estimates() -> None:
    # A cancelled job gets SIGINT, then SIGTERM 7.5 s later: stop within the first 7.5 s.
    assert read_knobs({}, CWD, CWD).stop_grace_s < 7.5
    knobs = read_knobs({"POINT_TIMEOUT_S": "0.5", "RUNNER_TEMP": "tmp"}, CWD, CWD)
    assert (knobs.point_timeout_s, knobs.runner_temp) == (0.5, CWD / "tmp")
