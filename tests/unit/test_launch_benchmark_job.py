"""generator.launch.benchmark_job: a point's timeout, and how a finished client's exit and
result line become the point's status and reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from generator.core.entry_checks import check_job
from generator.launch.benchmark_job import _judge, point_timeout
from generator.launch.knobs import read_knobs
from tests.launchers.support import fixture_job

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.core.contract import PointEntry

CWD = Path("/work/job")
MODULE = "sglang.bench_serving"
POINT = cast("PointEntry", {"id": "p", "num_prompts": 4})


def test_point_timeout_s_replaces_every_points_estimate_times_the_factor() -> None:
    job = check_job(fixture_job("--preset", "all-qwen"), "job.json")
    job["point_timeout_factor"] = 0.5
    point = job["points"][0]
    point["estimate_minutes"] = 4
    from_estimate = read_knobs({}, CWD, CWD)
    assert point_timeout(job, point, from_estimate) == (
        120.0,
        "estimate 4 min x point_timeout_factor 0.5",
    )
    overridden = read_knobs({"POINT_TIMEOUT_S": "7.5"}, CWD, CWD)
    assert point_timeout(job, point, overridden) == (7.5, "POINT_TIMEOUT_S")


def judge(tmp_path: Path, returncode: int, lines: str, log: str = "") -> tuple[Any, ...]:
    output, client_log = tmp_path / "bench.jsonl", tmp_path / "bench.log"
    output.write_text(lines, encoding="utf-8")
    client_log.write_text(log, encoding="utf-8")
    outcome = _judge(MODULE, POINT, returncode, output, client_log)
    return outcome.status, outcome.error, outcome.line


def test_a_client_that_completed_every_prompt_is_ok(tmp_path: Path) -> None:
    line = {"completed": 4, "output_throughput": 100.0}
    assert judge(tmp_path, 0, "{}\n" + json.dumps(line) + "\n") == ("ok", None, line)


def test_a_client_that_completed_too_few_prompts_is_ok_with_the_count(tmp_path: Path) -> None:
    line = {"completed": 3}
    assert judge(tmp_path, 0, json.dumps(line)) == ("ok", "3 of 4 requests completed", line)


def test_a_failed_client_names_its_exit_and_its_log_s_tail(tmp_path: Path) -> None:
    assert judge(tmp_path, 1, "", "starting\nValueError: bad\n") == (
        "failed",
        f"{MODULE} exited with status 1:\nstarting\nValueError: bad",
        None,
    )
    assert judge(tmp_path, -9, "")[:2] == ("failed", f"{MODULE} exited with signal SIGKILL")


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ("", "wrote no usable result line: {output} is empty"),
        (
            '{"completed": 4, "output_throughput": -1}',
            "result line: output_throughput -1 is negative",
        ),
        ('{"completed": 2.5}', "result line: completed 2.5 is not a whole number"),
        ('{"output_throughput": 1.0}', "result line has no 'completed' count"),
    ],
)
def test_an_unusable_result_line_fails_the_point(tmp_path: Path, lines: str, error: str) -> None:
    status, reason, _ = judge(tmp_path, 0, lines)
    assert (status, reason) == (
        "failed",
        f"{MODULE} " + error.format(output=tmp_path / "bench.jsonl"),
    )
