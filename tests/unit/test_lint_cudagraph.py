"""`generator.lint.rules.cudagraph.graph_max`: the largest CUDA-graph batch an argv fixes."""

from __future__ import annotations

from generator.lint.rules.cudagraph import graph_max


def test_an_explicit_list_of_batch_sizes_wins_over_the_maximum() -> None:
    flags = {"--cuda-graph-bs": ("1", "2", "64", "32"), "--cuda-graph-max-bs": ("512",)}
    assert graph_max(flags) == (64, "--cuda-graph-bs")


def test_without_a_list_the_maximum_is_the_largest_batch() -> None:
    assert graph_max({"--cuda-graph-max-bs": ("256",)}) == (256, "--cuda-graph-max-bs")


def test_no_graphs_or_no_number_fixes_no_batch() -> None:
    assert graph_max({"--disable-cuda-graph": (), "--cuda-graph-bs": ("8",)}) is None
    assert graph_max({"--cuda-graph-max-bs": ("auto",)}) is None
    assert graph_max({}) is None
