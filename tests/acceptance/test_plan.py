"""`sglang-ci plan`, the weekly table and the packed matrices, through the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Invoke
from tests.helpers import FIXTURE, copy_catalogs, edit

GROUPS = {
    # name: (runs a week, cells, packed launches)
    "oob-deepseek-non-mtp": (2, 60, 6),
    "oob-deepseek-mtp-qwen": (2, 60, 6),
    "mesh-all": (1, 71, 17),
    "oob-all": (1, 120, 12),
}


def run_json(cli: Invoke, *args: str, root: Path = FIXTURE) -> Any:
    result = cli(*args, root=root)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_the_week_packs_431_cells_into_53_launches(cli: Invoke) -> None:
    week = run_json(cli, "plan", "--week", "--json")
    assert week["cells_per_week"] == 431
    assert week["per_cell_launches_per_week"] == 431
    assert week["launches_per_week"] == 53
    got = {
        g["name"]: (g["runs_per_week"], g["cells"], g["packed"]["launches"]) for g in week["groups"]
    }
    assert got == GROUPS
    for g in week["groups"]:
        assert g["per_cell"]["launches"] == g["cells"]
        assert g["packed"]["jobs"] == g["packed"]["launches"]


def test_week_totals_are_the_groups_times_their_runs(cli: Invoke) -> None:
    week = run_json(cli, "plan", "--week", "--json")
    for key, field in [("gpu_hours", "gpu_hours_per_week"), ("wall_hours", "wall_hours_per_week")]:
        for shape, prefix in [("packed", ""), ("per_cell", "per_cell_")]:
            total = sum(g["runs_per_week"] * g[shape][key] for g in week["groups"])
            # Groups are rounded to 0.1 h before this sum, the total after.
            assert week[prefix + field] == pytest.approx(total, abs=0.05 * len(week["groups"]) * 2)
    assert week["gpu_hours_per_week"] < week["per_cell_gpu_hours_per_week"] / 3


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_a_group_plan_lists_the_jobs_of_its_rendered_matrix(
    cli: Invoke, rendered_fixture: Path, group: str
) -> None:
    plan = run_json(cli, "plan", "--group", group, "--json")
    path = rendered_fixture / f".github/matrices/benchmark/schedule/{group}.json"
    committed = json.loads(path.read_text())
    jobs = committed["include"]
    assert [(j["id"], len(j["points"]), j["estimate_minutes"]) for j in jobs] == [
        (j["id"], j["points"], j["estimate_minutes"]) for j in plan["jobs"]
    ]
    for job in jobs:
        assert job["estimate_minutes"] >= job["startup_minutes"] + sum(
            p["estimate_minutes"] - 1 for p in job["points"]
        )
        assert job["estimate_minutes"] <= 300
        assert job["timeout_minutes"] == 360
    _, cells, launches = GROUPS[group]
    assert (plan["cells"], plan["packed"]["launches"], plan["per_cell"]["launches"]) == (
        cells,
        launches,
        cells,
    )
    # 8-GPU runners: GPU-hours are 8 x the job hours (rounded up minutes in the matrix).
    hours = sum(j["estimate_minutes"] for j in jobs) * 8 / 60
    assert plan["packed"]["gpu_hours"] == pytest.approx(hours, abs=len(jobs) * 8 / 60)


def test_wall_time_spreads_jobs_over_the_runner_pool(cli: Invoke, tmp_path: Path) -> None:
    two = run_json(cli, "plan", "--group", "oob-all", "--json")
    root = copy_catalogs(tmp_path)
    edit(
        root / "catalogs/benchmark.yaml",
        "    gpus: 8\n    count: 2\n",
        "    gpus: 8\n    count: 12\n",
    )
    twelve = run_json(cli, "plan", "--group", "oob-all", "--json", root=root)
    longest = two["packed"]["longest_job_minutes"]
    # Twelve machines run the twelve jobs at once: the longest job is the wall time.
    assert twelve["packed"]["wall_hours"] == pytest.approx(longest / 60, abs=0.05 + 1 / 60)
    # Two machines: at least half the total, at most half plus the longest job.
    total = sum(j["estimate_minutes"] for j in two["jobs"]) / 60
    assert total / 2 - 0.1 <= two["packed"]["wall_hours"] <= total / 2 + longest / 60 + 0.1
    assert twelve["packed"]["gpu_hours"] == two["packed"]["gpu_hours"]


def test_a_tighter_bound_splits_the_committed_shape_and_check_sees_the_drift(
    cli: Invoke, rendered_fixture: Path, tmp_path: Path
) -> None:
    root = Path(shutil.copytree(rendered_fixture, tmp_path / "repo"))
    edit(root / "catalogs/benchmark.yaml", "  max_job_minutes: 300\n", "  max_job_minutes: 70\n")
    result = cli("check", root=root)
    assert result.exit_code == 1
    assert "schedule/oob-all.json" in result.stdout
    jobs = run_json(cli, "jobs", "--group", "oob-all", root=root)["include"]
    assert len(jobs) == 24
    assert all(j["estimate_minutes"] <= 70 for j in jobs)
    assert [j["id"] for j in jobs[:2]] == ["deepseek-r1-fp8-tp4-1of2", "deepseek-r1-fp8-tp4-2of2"]
    # Even by minutes, not by count: the 8192x1024 points (the last five) are longer.
    assert [len(j["points"]) for j in jobs[:2]] == [6, 4]
    week = run_json(cli, "plan", "--week", "--json", root=root)
    assert week["cells_per_week"] == 431
    assert week["launches_per_week"] > 53
    again = run_json(cli, "jobs", "--group", "oob-all", root=root)["include"]
    assert [j["id"] for j in again] == [j["id"] for j in jobs]


def test_a_per_cell_group_keeps_the_legacy_shape(cli: Invoke, tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    edit(
        root / "catalogs/benchmark.yaml",
        '    cron: "0 14 * * 5"\n',
        '    cron: "0 14 * * 5"\n    packing: per-cell\n',
    )
    jobs = run_json(cli, "jobs", "--group", "mesh-all", root=root)["include"]
    cells = run_json(cli, "cells", "--group", "mesh-all", root=root)
    assert [j["id"] for j in jobs] == [c["id"] for c in cells]
    assert all(len(j["points"]) == 1 for j in jobs)
    week = run_json(cli, "plan", "--week", "--json", root=root)
    assert week["launches_per_week"] == 53 - 17 + 71


def test_the_text_plan_shows_both_shapes(cli: Invoke) -> None:
    result = cli("plan")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("week: 4 cron groups; runners: atom-mi355-8gpu-aac-runner 2 x 8")
    assert lines[2].split() == ["packed", "one", "job", "per", "cell"]
    assert lines[3].split() == [
        "cron", "group", "runs/week", "cells", "launches", "GPU-h", "wall", "h",
        "launches", "GPU-h", "wall", "h",
    ]  # fmt: skip
    week = next(line for line in lines if line.startswith("per week"))
    assert week.split()[:4] == ["per", "week", "431", "53"]
    assert week.split()[6] == "431"
    assert lines[-1] == "A/B confirmation: off (regression.confirm.enabled is false)"
    preset = cli("plan", "--preset", "ds-fp4-tp8", "--mode", "sglang-mori").stdout.splitlines()
    assert preset[0] == "preset ds-fp4-tp8: 1 config, 16 cells"
    assert preset[-4].split()[:2] == ["deepseek-r1-fp4-mesh-tp8-8192x1", "8"]
    assert preset[-3].split()[:2] == ["deepseek-r1-fp4-mesh-tp8-1x1024", "8"]
    assert preset[-1] == "A/B confirmation: off (regression.confirm.enabled is false)"


def test_plan_refuses_a_week_with_a_selection_and_an_unknown_group(cli: Invoke) -> None:
    result = cli("plan", "--week", "--group", "mesh-all")
    assert result.exit_code == 2
    assert "--week takes no selection" in result.stderr
    result = cli("plan", "--group", "mesh")
    assert result.exit_code == 2
    assert result.stderr == "error: unknown cron group 'mesh' (did you mean 'mesh-all'?)\n"


def test_coverage_and_labels_carry_the_plan(cli: Invoke, rendered_fixture: Path) -> None:
    week = run_json(cli, "plan", "--week", "--json")
    coverage = (rendered_fixture / "docs/coverage.md").read_text()
    row = (
        f"| **week** | | 431 | 53 | {week['gpu_hours_per_week']} | "
        f"{week['wall_hours_per_week']} | 431 | {week['per_cell_gpu_hours_per_week']} | "
        f"{week['per_cell_wall_hours_per_week']} |"
    )
    assert row in coverage.splitlines()
    preset = run_json(cli, "plan", "--preset", "all-deepseek", "--json")
    label = f"all-deepseek (10 configs, 100 cells, ~{preset['packed']['gpu_hours']:.0f} GPU-h)"
    workflow = (rendered_fixture / ".github/workflows/benchmark.yml").read_text()
    assert f'          - "{label}"' in workflow.splitlines()


def test_a_one_cell_job_shares_its_id_with_the_cell_and_kind_chooses(
    cli: Invoke, tmp_path: Path
) -> None:
    root = copy_catalogs(tmp_path)
    edit(
        root / "catalogs/benchmark.yaml",
        "  - prefix: deepseek-r1-fp8-tp4\n",
        "  - prefix: deepseek-r1-fp8-tp4\n    packing: per-cell\n",
    )
    cell = "deepseek-r1-fp8-tp4-1024-1024-4-0.8"
    both = cli("explain", cell, root=root)
    assert both.exit_code == 0
    lines = both.stdout.splitlines()
    assert lines[0] == f"# '{cell}' names a job and a cell; --kind chooses one"
    titles = [line for line in lines if line.startswith(("# benchmark job ", "# cell "))]
    assert titles == [
        f"# benchmark job {cell}: DeepSeek-R1-0528 FP8 TP4",
        f"# cell {cell}: DeepSeek-R1-0528 FP8 TP4 (a point of job {cell})",
    ]
    job = cli("explain", cell, "--kind", "job", root=root)
    assert job.stdout.splitlines()[0] == f"# benchmark job {cell}: DeepSeek-R1-0528 FP8 TP4"
    one = cli("explain", cell, "--kind", "cell", root=root)
    assert one.stdout.splitlines()[0].startswith(f"# cell {cell}")
