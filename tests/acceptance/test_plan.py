"""`sglang-ci plan`, the weekly table and the packed matrices, through the real CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURE, copy_catalogs, edit, git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.conftest import Invoke

GROUPS = {
    # name: (runs a week, cells, packed launches)
    "oob-deepseek-non-mtp": (2, 60, 6),
    "oob-deepseek-mtp-qwen": (2, 60, 6),
    "mesh-all": (1, 71, 17),
    "oob-all": (1, 120, 12),
}


# The JSON the command prints, of whatever shape: the tests index it as they assert.
def run_json(cli: Invoke, *args: str, root: Path = FIXTURE) -> Any:  # noqa: ANN401 (see above)
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
    # A preset is suggested among the presets' names, not another suite's short alias.
    result = cli("plan", "--preset", "all-glm")
    assert (result.exit_code, result.stderr) == (
        2,
        "error: unknown preset 'all-glm'; `sglang-ci summary` lists the presets\n",
    )


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


# ------------------------------------------------------------- plan --week --base REF


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The fixture catalogs committed on `main`, checked out on a branch `change`."""
    root = copy_catalogs(tmp_path / "repo")
    for args in (
        ("init", "--quiet", "--initial-branch=main"),
        ("add", "."),
        ("commit", "--quiet", "-m", "base"),
        ("checkout", "--quiet", "-b", "change"),
    ):
        git(root, *args)
    return root


def test_a_new_oob_config_adds_its_launches_and_gpu_hours_to_the_week(
    cli: Invoke, repo: Path
) -> None:
    edit(
        repo / "catalogs/benchmark.yaml",
        "  # --------------------------------------------------------------- SGLang-Mesh\n",
        "  - prefix: deepseek-r1-fp8-tp8-copy\n"
        "    display: DeepSeek-R1-0528 FP8 TP8 copy\n"
        "    suite: SGLang-OOB\n"
        "    model: deepseek-r1-fp8\n"
        "    parallel: {tp: 8}\n"
        "    args: [trust_remote_code, aiter_runtime]\n"
        "    env: [deepseek_common, quick_reduce_int4]\n\n"
        "  # --------------------------------------------------------------- SGLang-Mesh\n",
    )
    data = run_json(cli, "plan", "--week", "--base", "main", "--json", root=repo)
    twin = run_json(cli, "plan", "--preset", "deepseek-r1-fp8-tp8", "--json")["packed"]
    assert (data["base"], data["merge_base"]) == ("main", git(repo, "rev-parse", "main").strip())
    # non-MTP DeepSeek twice a week and OOB-all once: three runs of one launch.
    assert data["launches_per_week"] == {"base": 53, "head": 56, "change": 3}
    assert data["cells_per_week"] == {"base": 431, "head": 461, "change": 30}
    [config] = data["configs"]
    assert config["prefix"] == "deepseek-r1-fp8-tp8-copy"
    assert config["launches"] == {"base": 0, "head": 3, "change": 3}
    assert config["gpu_hours"]["change"] == pytest.approx(3 * twin["gpu_hours"], abs=0.1)
    assert config["groups"] == {"oob-deepseek-non-mtp": 2, "oob-all": 1}
    text = cli("plan", "--week", "--base", "main", root=repo).stdout.splitlines()
    assert text[-1] == (
        "deepseek-r1-fp8-tp8-copy: run by oob-deepseek-non-mtp (2 a week), oob-all (1 a week)"
    )
    changed = {g["name"]: g["launches"]["change"] for g in data["groups"]}
    assert changed == {
        "oob-deepseek-non-mtp": 2,
        "oob-deepseek-mtp-qwen": 0,
        "mesh-all": 0,
        "oob-all": 1,
    }


def test_a_smaller_grid_shows_as_launches_and_hours_removed(cli: Invoke, repo: Path) -> None:
    """The FP8 DPA8 Mesh config without its decode pair: one server fewer on Fridays."""
    path = repo / "catalogs/benchmark.yaml"
    edit(
        path,
        "      8192x1: [512, 1024, 2048]\n      1x1024: [1024, 2048, 4096]\n",
        "      8192x1: [512, 1024, 2048]\n",
    )
    result = cli("plan", "--week", "--base", "main", root=repo)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("week against main (merge base ")
    assert "53 -> 52 launches (-1)" in lines[0]
    [row] = [line for line in lines if line.startswith("deepseek-r1-fp8-mesh-dpa8-ep8 ")]
    launches, hours = row.split()[1:4], row.split()[4:7]
    assert launches == ["2", "1", "-1"]
    assert float(hours[2]) < 0
    assert float(hours[0]) + float(hours[2]) == pytest.approx(float(hours[1]), abs=0.11)


def test_an_unchanged_catalog_changes_nothing_in_the_week(cli: Invoke, repo: Path) -> None:
    result = cli("plan", "--week", "--base", "main", root=repo)
    assert result.exit_code == 0, result.stderr
    assert "53 -> 53 launches (0)" in result.stdout
    assert result.stdout.endswith("no config's week changed\n")


def test_a_base_that_is_not_a_commit_is_one_line_exit_2(cli: Invoke, repo: Path) -> None:
    result = cli("plan", "--week", "--base", "no-such-ref", root=repo)
    assert result.exit_code == 2
    assert result.stderr.startswith("error: git merge-base no-such-ref HEAD: fatal: ")
    assert len(result.stderr.splitlines()) == 1


def test_base_takes_no_selection(cli: Invoke) -> None:
    result = cli("plan", "--base", "main", "--preset", "all-qwen")
    assert result.exit_code == 2
    assert "--base takes no selection" in result.stderr
