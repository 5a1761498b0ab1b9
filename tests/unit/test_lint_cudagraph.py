"""`generator.lint.rules.cudagraph`: the largest CUDA-graph batch an argv fixes (graph_max), and
concurrency per DP rank above it (L304)."""

from __future__ import annotations

import pytest

from generator.lint.checks import lint
from generator.lint.rules.cudagraph import graph_max
from tests.lint_helpers import BENCH, by_rule, edited

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.lint.findings import LintFinding


@pytest.fixture(autouse=True)
def _in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Findings name files relative to the working directory: `catalogs/benchmark.yaml`."""
    monkeypatch.chdir(tmp_path)


def test_an_explicit_list_of_batch_sizes_wins_over_the_maximum() -> None:
    flags = {"--cuda-graph-bs": ("1", "2", "64", "32"), "--cuda-graph-max-bs": ("512",)}
    assert graph_max(flags) == (64, "--cuda-graph-bs")


def test_without_a_list_the_maximum_is_the_largest_batch() -> None:
    assert graph_max({"--cuda-graph-max-bs": ("256",)}) == (256, "--cuda-graph-max-bs")


def test_no_graphs_or_no_number_fixes_no_batch() -> None:
    assert graph_max({"--disable-cuda-graph": (), "--cuda-graph-bs": ("8",)}) is None
    assert graph_max({"--cuda-graph-max-bs": ("auto",)}) is None
    assert graph_max({}) is None


def test_concurrency_per_dp_rank_within_the_cuda_graph_sizes_passes(tmp_path: Path) -> None:
    found = lint(edited(tmp_path, (BENCH, "1x1024: [1024, 2048, 4096]", "1x1024: [1024, 2048]")))
    assert by_rule(found, "L304") == []


def test_concurrency_per_dp_rank_above_the_cuda_graph_sizes_warns(
    fixture_findings: list[LintFinding],
) -> None:
    mtp = [f.message for f in by_rule(fixture_findings, "L304") if "dpa8-ep8-mtp" in f.message]
    assert mtp == [
        (
            "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-atom, 1x1024): concurrency 4096 "
            "over DP8 is more than 256 requests per rank, the largest CUDA-graph batch "
            "(--cuda-graph-bs); those batches run without CUDA graphs: raise --cuda-graph-bs or "
            "lower the concurrency"
        ),
        (
            "config 'deepseek-r1-fp4-mesh-dpa8-ep8-mtp' (sglang-mori, 1x1024): concurrency 4096 "
            "over DP8 is more than 256 requests per rank, the largest CUDA-graph batch "
            "(--cuda-graph-bs); those batches run without CUDA graphs: raise --cuda-graph-bs or "
            "lower the concurrency"
        ),
    ]
