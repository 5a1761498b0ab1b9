"""generator.catalog.config_section: each config's grid, pair extras and fragments, and the
configs that name what is not there refused at their line."""

from __future__ import annotations

import pytest

from generator.catalog import load
from generator.catalog.catalog_types import Pair
from generator.catalog.flags import argv
from tests.helpers import FIXTURE, refusal_after_edit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

MESH = "deepseek-r1-fp8-mesh-dpa8-ep8"


def test_a_config_without_a_grid_runs_its_suites_pairs_at_its_concurrencies() -> None:
    catalog = load(FIXTURE)
    oob = next(c for c in catalog.configs if c.prefix == "deepseek-r1-fp8-tp4")
    assert oob.grid == (
        (Pair(isl=1024, osl=1024), (4, 8, 16, 32, 64)),
        (Pair(isl=8192, osl=1024), (4, 8, 16, 32, 64)),
    )
    assert (oob.preset, oob.runner, oob.sampling.name) == (
        "deepseek-r1-fp8-tp4",
        "atom-mi355-8gpu-aac-runner",
        catalog.suite("SGLang-OOB").sampling,
    )


def test_a_mesh_config_keeps_its_grid_in_the_suites_pair_order_and_its_pair_extras() -> None:
    catalog = load(FIXTURE)
    mesh = next(c for c in catalog.configs if c.prefix == MESH)
    assert mesh.grid == (
        (Pair(isl=8192, osl=1), (512, 1024, 2048)),
        (Pair(isl=1, osl=1024), (1024, 2048, 4096)),
    )
    assert [(str(p), argv(x.args)) for p, x in mesh.per_pair] == [
        ("8192x1", ["--chunked-prefill-size", "65536"])
    ]
    assert mesh.fragments == (
        "trust_remote_code",
        "aiter_runtime",
        "deepseek_common",
        "quick_reduce_int4",
        "dp_common",
    )
    assert argv(mesh.args)[-2:] == ["--max-running-requests", "4096"]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("      8192x1:\n        args: [{--chunked", "      1024x1024:\n        args: [{--chunked",
         "per_pair 1024x1024 is not a pair this config runs"),
        ("      8192x1: [512, 1024, 2048]\n", "      1024x1024: [512]\n",
         "pair 1024x1024 is not one of suite SGLang-Mesh's pairs (8192x1, 1x1024)"),
        (f"  - prefix: {MESH}\n", "  - prefix: deepseek-r1-fp8-tp4\n",
         "duplicate prefix 'deepseek-r1-fp8-tp4' (first at line 263)"),
    ],
    ids=["per-pair-not-run", "pair-not-in-suite", "duplicate-prefix"],
)  # fmt: skip
def test_a_config_that_names_what_is_not_there_is_refused_at_its_line(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert refusal_after_edit(tmp_path, old, new) == message
