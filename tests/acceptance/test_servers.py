"""What each server is started with: exactly the catalog, no flag twice, the known extras."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from generator.catalog.flags import canonical
from generator.expand.entries import case_entry, cell_entry
from generator.expand.query import query

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.entries import CellEntry
    from generator.expand.expanded import Expanded
    from tests.conftest import Invoke

QUICK_REDUCE = "AITER_QUICK_REDUCE_QUANTIZATION"


def flags_of(args: list[str]) -> list[str]:
    return [canonical(a) for a in args if a.startswith("--")]


@pytest.fixture(scope="module")
def all_cells(fixture: Expanded) -> list[CellEntry]:
    image = fixture.catalog.default_image
    return [cell_entry(c, image) for c in query(fixture).run.cells]


@pytest.fixture(scope="module")
def all_cases(fixture: Expanded) -> list[dict[str, Any]]:
    return [dict(case_entry(fixture.catalog, r, r.case.levels[0])) for r in fixture.case_runs]


def test_no_cell_sets_a_flag_twice(all_cells: list[dict[str, Any]]) -> None:
    for cell in all_cells:
        repeated = [f for f, n in Counter(flags_of(cell["server_args"])).items() if n > 1]
        assert repeated == [], cell["id"]


def test_mesh_dpa_prefill_cells_carry_one_chunked_prefill_size(
    all_cells: list[dict[str, Any]],
) -> None:
    dpa = [c for c in all_cells if "-mesh-dpa" in c["config"]]
    assert len(dpa) == 27
    for cell in dpa:
        count = cell["server_args"].count("--chunked-prefill-size")
        if cell["pair"] == "8192x1":
            assert count == 1
            i = cell["server_args"].index("--chunked-prefill-size")
            assert cell["server_args"][i + 1] == "65536"
        else:
            assert count == 0, cell["id"]


def test_fp4_mesh_tp_decode_cells_use_the_non_shuffle_gemm(all_cells: list[dict[str, Any]]) -> None:
    tp = [c for c in all_cells if c["config"].startswith("deepseek-r1-fp4-mesh-tp")]
    assert len(tp) == 44
    for cell in tp:
        value = cell["env"].get("ATOM_USE_FP4_NON_SHUFFLE_TRITON_GEMM")
        assert value == ("1" if cell["pair"] == "1x1024" else None), cell["id"]
        assert "ATOM_USE_FP4_TRITON_GEMM" not in cell["env"]


def test_every_deepseek_oob_cell_sets_quick_reduce_int4(all_cells: list[dict[str, Any]]) -> None:
    oob = [c for c in all_cells if c["suite"] == "SGLang-OOB" and "deepseek" in c["config"]]
    assert len(oob) == 100
    assert {c["env"][QUICK_REDUCE] for c in oob} == {"INT4"}


def test_no_accuracy_case_sets_quick_reduce(all_cases: list[dict[str, Any]]) -> None:
    for case in all_cases:
        assert QUICK_REDUCE not in case["env"], case["id"]


def test_deepseek_accuracy_twins_start_the_benchmark_server_but_for_quick_reduce(
    cli: Invoke, all_cases: list[dict[str, Any]]
) -> None:
    twins = [c for c in all_cases if c["benchmark"] and "deepseek" in c["id"]]
    assert len(twins) == 8
    for case in twins:
        jobs = cli("jobs", "--preset", case["benchmark"], "--suite", "SGLang-OOB").stdout
        job = json.loads(jobs)["include"][0]
        assert case["server_args"] == job["server_args"]
        assert case["model_path"] == job["model_path"]
        expected = {k: v for k, v in job["env"].items() if k != QUICK_REDUCE}
        assert case["env"] == expected


def test_mtp_and_dp_cases_carry_none_of_the_removed_variables(
    all_cells: list[dict[str, Any]], all_cases: list[dict[str, Any]]
) -> None:
    removed = {
        "CUDA_VISIBLE_DEVICES",
        "TP_SIZE",
        "MTP",
        "SPECULATIVE_NUM_DRAFT_TOKENS",
        "ATOM_DUAL_STREAM_MOE_TOKEN_THRESHOLD",
    }
    for entry in [*all_cells, *all_cases]:
        assert removed.isdisjoint(entry["env"]), entry["id"]


def test_mesh_atom_mode_puts_the_tensor_parallel_size_in_front(
    all_cells: list[dict[str, Any]],
) -> None:
    for cell in all_cells:
        assert cell["server_args"][0] == "--tensor-parallel-size"
        assert cell["server_args"].count("--tensor-parallel-size") == 1


def test_mori_mode_runs_the_inferencex_shape_with_the_config_on_top(cli: Invoke) -> None:
    """As the system we replace ran it: the mode's flags first and the config's args and env
    on top; the config's --mem-fraction-static 0.85 wins over the mode's 0.8, once."""
    image = "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x"
    result = cli("jobs", "--preset", "ds-fp8-dpa8-ep8", "--mode", "sglang-mori", "--image", image)
    assert result.exit_code == 0, result.stderr
    jobs = {j["id"]: j for j in json.loads(result.stdout)["include"]}
    prefill = jobs["deepseek-r1-fp8-mesh-dpa8-ep8-8192x1"]
    args = prefill["server_args"]
    assert args[:12] == [
        "--tensor-parallel-size",
        "8",
        "--chunked-prefill-size",
        "65536",
        "--max-prefill-tokens",
        "65536",
        "--mem-fraction-static",
        "0.85",
        "--disable-radix-cache",
        "--num-continuous-decode-steps",
        "4",
        "--cuda-graph-max-bs",
    ]
    assert args.count("--chunked-prefill-size") == 1
    assert args.count("--mem-fraction-static") == 1
    decode = jobs["deepseek-r1-fp8-mesh-dpa8-ep8-1x1024"]["server_args"]
    assert decode[2:6] == ["--chunked-prefill-size", "196608", "--max-prefill-tokens", "196608"]
    assert prefill["env"] == {
        "SGLANG_USE_AITER": "1",
        "SGLANG_AITER_MLA_PERSIST": "1",
        "ROCM_QUICK_REDUCE_QUANTIZATION": "INT4",
        "AITER_QUICK_REDUCE_QUANTIZATION": "INT4",
        "IBDEVICES": "rdma0,rdma1,rdma2,rdma3,rdma4,rdma5,rdma6,rdma7",
        "SGLANG_DEFAULT_SERVER_ARGS": "",
        "SGLANG_AITER_FP8_PREFILL_ATTN": "0",
        "ATOM_ENABLE_DS_QKNORM_QUANT_FUSION": "1",
        "SGLANG_EXTERNAL_MODEL_PACKAGE": "atom.plugin.sglang.models",
        "SGLANG_ENABLE_TORCH_COMPILE": "1",
        "TORCHINDUCTOR_COMPILE_THREADS": "128",
        "MORI_SHMEM_MODE": "ISOLATION",
    }
    assert prefill["image"] == image


def test_mori_mode_adds_spec_v2_only_for_mtp_configs(cli: Invoke) -> None:
    image = "lmsysorg/sglang-rocm:v0.5.9-rocm700-mi35x"
    result = cli("jobs", "--preset", "mtp", "--mode", "sglang-mori", "--image", image)
    assert {
        j["env"].get("SGLANG_ENABLE_SPEC_V2") for j in json.loads(result.stdout)["include"]
    } == {"1"}
    result = cli("jobs", "--preset", "non-mtp", "--mode", "sglang-mori", "--image", image)
    assert {
        j["env"].get("SGLANG_ENABLE_SPEC_V2") for j in json.loads(result.stdout)["include"]
    } == {None}


def test_mori_mode_refuses_an_image_outside_its_repositories(cli: Invoke) -> None:
    result = cli(
        "jobs",
        "--preset",
        "ds-all",
        "--mode",
        "sglang-mori",
        "--image",
        "rocm/atom-dev:sglang-latest",
    )
    assert result.exit_code == 2
    assert result.stderr == (
        "error: image 'rocm/atom-dev:sglang-latest': server mode 'sglang-mori' runs images "
        "of docker.io/lmsysorg/sglang-rocm only\n"
    )


def test_oob_suite_has_no_mori_mode(cli: Invoke) -> None:
    result = cli("cells", "--suite", "oob", "--mode", "sglang-mori")
    assert result.exit_code == 2
    assert "suite SGLang-OOB has no server mode 'sglang-mori'" in result.stderr
