"""Every count of the spec, through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.conftest import Invoke


# The JSON the command prints, of whatever shape: the tests index it as they assert.
def run_json(cli: Invoke, *args: str) -> Any:  # noqa: ANN401 (see above)
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_the_catalog_has_191_cells(cli: Invoke) -> None:
    assert len(run_json(cli, "cells")) == 191


@pytest.mark.parametrize(
    ("suite", "cells", "configs"),
    [("SGLang-OOB", 120, 12), ("SGLang-Mesh", 71, 10), ("oob", 120, 12)],
)
def test_each_suite_has_its_cells(cli: Invoke, suite: str, cells: int, configs: int) -> None:
    data = run_json(cli, "cells", "--suite", suite)
    assert len(data) == cells
    assert len({c["config"] for c in data}) == configs


@pytest.mark.parametrize(
    ("cron", "configs", "cells"),
    [
        ("0 14 * * 1,3", 6, 60),
        ("0 14 * * 2,4", 6, 60),
        ("0 14 * * 5", 10, 71),
        ("0 14 * * 6", 12, 120),
    ],
)
def test_each_cron_group_has_the_spec_counts(
    cli: Invoke, cron: str, configs: int, cells: int
) -> None:
    data = run_json(cli, "cells", "--cron", cron)
    assert (len({c["config"] for c in data}), len(data)) == (configs, cells)


@pytest.mark.parametrize(
    ("preset", "configs", "cells"),
    [
        ("all-deepseek", 10, 100),
        ("all-deepseek-non-mtp", 6, 60),
        ("all-deepseek-mtp", 4, 40),
        ("all-qwen", 2, 20),
        ("all-oob", 12, 120),
        ("ds-all", 10, 71),
        ("all", 10, 71),
        ("ds-fp4-all", 8, 62),
        ("fp4-all", 8, 62),
        ("ds-fp8-all", 2, 9),
        ("fp8-all", 2, 9),
        ("non-mtp", 6, 40),
        ("mtp", 4, 31),
        ("ds-fp4-non-mtp", 4, 31),
        ("ds-fp4-mtp", 4, 31),
        ("ds-fp8-non-mtp", 2, 9),
    ],
)
def test_each_group_preset_has_the_spec_counts(
    cli: Invoke, preset: str, configs: int, cells: int
) -> None:
    data = run_json(cli, "cells", "--preset", preset)
    assert (len({c["config"] for c in data}), len(data)) == (configs, cells)


MESH_PRESETS = {
    "ds-fp8-dpa4-ep4": 3,
    "ds-fp8-dpa8-ep8": 6,
    "ds-fp4-tp4": 6,
    "ds-fp4-tp8": 16,
    "ds-fp4-dpa4-ep4": 3,
    "ds-fp4-dpa8-ep8": 6,
    "ds-fp4-tp4-mtp": 6,
    "ds-fp4-tp8-mtp": 16,
    "ds-fp4-dpa4-ep4-mtp": 3,
    "ds-fp4-dpa8-ep8-mtp": 6,
}
OOB_PRESETS = [
    "deepseek-r1-fp8-tp4",
    "deepseek-r1-fp8-tp8",
    "deepseek-r1-fp4-tp4",
    "deepseek-r1-fp4-tp8",
    "deepseek-r1-fp4-tp4-dp4-ep4",
    "deepseek-r1-fp4-tp8-dp8-ep8",
    "deepseek-r1-fp4-tp8-mtp1",
    "deepseek-r1-fp4-tp8-mtp3",
    "deepseek-r1-fp4-mtp3-tp4-dp4-ep4",
    "deepseek-r1-fp4-mtp3-tp8-dp8-ep8",
    "qwen3-5-397b-a17b-fp8-tp4",
    "qwen3-5-397b-a17b-fp8-tp8",
]


@pytest.mark.parametrize(
    ("preset", "cells"), [*MESH_PRESETS.items(), *((p, 10) for p in OOB_PRESETS)]
)
def test_each_config_preset_selects_its_own_cells(cli: Invoke, preset: str, cells: int) -> None:
    data = run_json(cli, "cells", "--preset", preset)
    assert len(data) == cells
    assert len({c["config"] for c in data}) == 1


def test_nightly_atom_accuracy_has_15_cases(cli: Invoke) -> None:
    assert len(run_json(cli, "cases", "--level", "nightly", "--suite", "atom")) == 15


def test_pr_accuracy_is_exactly_the_three_light_cases(cli: Invoke) -> None:
    names = [c["name"] for c in run_json(cli, "cases", "--level", "pr")]
    assert names == ["DeepSeek-R1-FP8 TP4", "Qwen3.5-35B-A3B-FP8 TP2", "DeepSeek-R1-FP4 TP4"]


def test_the_sglang_nightly_case_runs_on_two_images_for_180_minutes(cli: Invoke) -> None:
    data = run_json(cli, "cases", "--suite", "sglang")
    assert [c["image"] for c in data] == [
        "rocm/sgl-dev:{version}-rocm700-mi35x-{date}",
        "rocm/sgl-dev:{version}-rocm720-mi35x-{date}",
    ]
    assert [c["id"] for c in data] == [
        "deepseek-r1-mxfp4-tp4-mtp-rocm700",
        "deepseek-r1-mxfp4-tp4-mtp-rocm720",
    ]
    for case in data:
        assert case["threshold"] == 0.944
        assert (case["timeout_minutes"], case["eval_timeout_minutes"]) == (180, 120)
        assert case["model_path"] == "amd/DeepSeek-R1-MXFP4-Preview"
        assert case["evaluator"] == {
            "kind": "sglang-few-shot-gsm8k",
            "num_shots": 5,
            "num_questions": 1319,
            "parallel": 1319,
            "max_new_tokens": 512,
        }
        assert "--tensor-parallel-size" in case["server_args"]


def test_summary_json_counts_launches_per_cron_group(cli: Invoke) -> None:
    data = run_json(cli, "summary", "--json")
    assert [(s["cron"], s["configs"], s["cells"], s["jobs"]) for s in data["schedules"]] == [
        ("0 14 * * 1,3", 6, 60, 6),
        ("0 14 * * 2,4", 6, 60, 6),
        ("0 14 * * 5", 10, 71, 17),
        ("0 14 * * 6", 12, 120, 12),
    ]
    assert data["benchmark"]["total"] == {"configs": 22, "cells": 191, "jobs": 29}


def test_cells_carry_the_legacy_id_and_every_documented_field(cli: Invoke) -> None:
    cell = run_json(cli, "cells", "--preset", "deepseek-r1-fp8-tp4")[0]
    assert cell["id"] == "deepseek-r1-fp8-tp4-1024-1024-4-0.8"
    for key in (
        "suite",
        "config",
        "display",
        "model_path",
        "isl",
        "osl",
        "concurrency",
        "random_range_ratio",
        "num_prompts",
        "num_warmups",
        "server_args",
        "env",
        "runner",
    ):
        assert key in cell
    assert (cell["num_prompts"], cell["num_warmups"]) == (40, 8)


def test_output_is_byte_identical_across_hash_seeds() -> None:
    outs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run(
            [sys.executable, "-m", "generator", "cells"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            check=True,
        )
        outs.add(proc.stdout)
    assert len(outs) == 1
