"""`results compare` on a history laid out as the shipped schedules make it: the fixture
catalog's four benchmark cron groups on their weekdays (OOB DeepSeek non-MTP on Monday and
Wednesday, MTP + Qwen on Tuesday and Thursday, Mesh on Friday, every OOB config on
Saturday), one run directory per group run with every point of its jobs, and the nightly
accuracy run between them every day. The weekly Mesh suite lies a week and a dozen runs of
other configs apart from itself: its points still get a full baseline after 7 runs, and a
10% drop on one Mesh config is suspected on its first run and confirmed on its second."""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
from datetime import timedelta
from typing import Any

import pytest
from click.testing import CliRunner

from generator.cli.sglang_ci import main
from tests.launchers.support import _cli_json
from tests.results_gen import START, Point, Run, Shape, case_record, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

CRONS = ("0 14 * * 1,3", "0 14 * * 2,4", "0 14 * * 5", "0 14 * * 6")
MESH = "0 14 * * 5"
DROPPED = "deepseek-r1-fp4-mesh-tp8"  # a Mesh config: its jobs run 10% slower
FULL = 7  # the policy's `runs`: a full baseline


def weekday(day: int) -> int:
    """Monday 1 ... Sunday 7, as cron counts them (0 is Sunday too)."""
    return (START + timedelta(days=day)).isoweekday()


def jobs(cron: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = _cli_json("jobs", "--cron", cron)["include"]
    return found


def groups(day: int) -> Iterator[str]:
    for cron in CRONS:
        if weekday(day) in {int(d) for d in cron.split()[4].split(",")}:
            yield cron


def point_records(run: Run, job: dict[str, Any], slower: float, rng: random.Random) -> list[Any]:
    out = []
    for p in job["points"]:
        point = Point(
            config=job["config"], isl=p["isl"], osl=p["osl"], concurrency=p["concurrency"],
            spec=job["spec"], draft_tokens=job["draft_tokens"], gpus=job["gpus"],
        )  # fmt: skip
        rec = point_record(run, point, Shape(throughput=slower, noise=0.01), rng)
        rec.update(
            id=p["id"],
            job_id=job["id"],
            server_fingerprint=job["server_fingerprint"],
            runner_label=job["runner"],
            suite=job["suite"],
        )
        rec["provenance"]["runner_label"] = job["runner"]
        rec["provenance"]["image"]["requested"] = job["image"]
        out.append(rec)
    return out


def benchmark(parent: Path, day: int, *, drop: bool = False, name: str | None = None) -> Path:
    """The run of `day`'s cron groups (one run directory; Mesh's config DROPPED 10% slower
    when `drop`)."""
    run = Run(day=day)
    rng = random.Random(day)
    records = [
        rec
        for cron in groups(day)
        for job in jobs(cron)
        for rec in point_records(run, job, 0.9 if drop and job["config"] == DROPPED else 1.0, rng)
    ]
    return write_run(parent, run, records, name=name or f"{run.name}-benchmark")


def accuracy(parent: Path, day: int) -> None:
    run = Run(day=day)
    cases = _cli_json("cases", "--level", "nightly")
    write_run(parent, run, [case_record(run, c["case"]) for c in cases], name=f"{run.name}-gsm8k")


def mesh_days(weeks: int) -> list[int]:
    return [d for d in range(7 * weeks) if weekday(d) == 5]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seven weeks of the schedule and the eighth up to its Friday (not included)."""
    where = tmp_path_factory.mktemp("schedule") / "history"
    friday = mesh_days(8)[FULL]
    for day in range(friday):
        if any(groups(day)):
            benchmark(where, day)
        accuracy(where, day)
    return where


def compare(root: Path, history: Path, current: Path) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        main,
        [
            *("--root", str(root), "results", "compare"),
            *("--history", str(history), "--current", str(current), "--json"),
        ],
        catch_exceptions=False,
    )
    return result.exit_code, json.loads(result.stdout)


def test_the_schedule_puts_a_dozen_runs_between_two_mesh_runs(history: Path) -> None:
    # Between two Fridays: five benchmark runs (Saturday, Monday to Thursday) and seven
    # nightly accuracy runs.
    names = sorted(d.name for d in history.iterdir())
    fridays = {f"{Run(day=d).name}-benchmark" for d in mesh_days(8)}
    mesh = [i for i, name in enumerate(names) if name in fridays]
    assert len(mesh) == FULL
    assert {b - a - 1 for a, b in itertools.pairwise(mesh)} == {12}


def test_after_seven_runs_every_mesh_point_has_a_full_baseline_and_a_drop_is_suspected(
    history: Path, tmp_path: Path
) -> None:
    friday = mesh_days(8)[FULL]
    current = benchmark(tmp_path, friday, drop=True, name="run")
    status, data = compare(tmp_path, history, current)
    mesh = [p for p in data["points"] if "-mesh-" in p["config"]]
    assert len(mesh) == 71
    runs = {p["metrics"]["output_throughput_per_gpu"]["runs"] for p in mesh}
    assert runs == {FULL}
    assert status == 0
    dropped = {p["verdict"] for p in mesh if p["config"] == DROPPED}
    assert dropped == {"suspected"}
    assert {p["verdict"] for p in mesh if p["config"] != DROPPED} == {"ok"}
    assert {e["state"] for e in data["events"] if e["config"] == DROPPED} == {"suspected"}


def test_a_ten_percent_drop_on_a_mesh_config_is_confirmed_on_its_second_run(
    history: Path, tmp_path: Path
) -> None:
    friday, next_friday = mesh_days(9)[FULL : FULL + 2]
    extended = tmp_path / "extended"
    extended.mkdir()
    for entry in history.iterdir():  # hard links: a history never follows a symbolic one
        shutil.copytree(entry, extended / entry.name, copy_function=os.link)
    benchmark(extended, friday, drop=True)
    for day in range(friday, next_friday):
        accuracy(extended, day)
        if day != friday and any(groups(day)):
            benchmark(extended, day)
    current = benchmark(tmp_path, next_friday, drop=True, name="run")
    status, data = compare(tmp_path, extended, current)
    assert status == 1
    events = [e for e in data["events"] if e["config"] == DROPPED]
    assert events
    assert {e["state"] for e in events} == {"confirmed"}
    assert all(e["new_confirmation"] for e in events)
    first = f"{Run(day=friday).name}-benchmark"
    assert {e["first_bad_run"] for e in events} == {first}
    assert {p["verdict"] for p in data["points"] if p["config"] == DROPPED} == {"regression"}
    assert data["confirmed"] == [e["id"] for e in events]
