"""Recipe pages select configs and accuracy cases with the same selector over their fields."""

from __future__ import annotations

import re

from generator.render import render
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def page_ids(root: Path, recipes: str) -> dict[str, list[tuple[str, str]]]:
    """Each page's entries as (kind, id)."""
    edit(
        root / "catalogs/benchmark.yaml",
        "recipes:\n  DeepSeek-R1: {family: deepseek}\n  Qwen3.5: {family: qwen}\n",
        "recipes:\n" + recipes,
    )
    out = render(expanded_at(root), root)
    pages = {p: t for p, t in out.items() if p.startswith("docs/recipes/")}
    return {
        path.removeprefix("docs/recipes/"): re.findall(
            r"^(Benchmark job|Accuracy case) `([^`]+)`", text, re.MULTILINE
        )
        for path, text in pages.items()
    }


def test_a_precision_selector_picks_the_cases_of_that_precision(tmp_path: Path) -> None:
    ids = page_ids(copy_catalogs(tmp_path), "  FP4: {precision: fp4}\n")
    cases = [i for kind, i in ids["FP4.md"] if kind == "Accuracy case"]
    assert cases == [
        "deepseek-r1-fp4-tp4",
        "deepseek-r1-fp4-tp4-dp4-ep4",
        "deepseek-r1-fp4-tp8-dp8-ep8",
        "deepseek-r1-fp4-tp8",
        "deepseek-r1-fp4-tp8-mtp3",
        "deepseek-r1-fp4-mtp-moefp4-tp8",
        "deepseek-r1-fp4-mtp-moefp4-tp8-dp8-ep8",
        "deepseek-r1-fp4-mtp-moefp4-tp8-mtp3",
        "deepseek-r1-fp4-tp8-mtp1",
        "deepseek-r1-mxfp4-tp4-mtp-rocm700",
        "deepseek-r1-mxfp4-tp4-mtp-rocm720",
    ]
    jobs = [i for kind, i in ids["FP4.md"] if kind == "Benchmark job"]
    assert len(jobs) == 8 + 14
    assert all("fp4" in i for i in jobs)


def test_two_fields_must_both_match_for_a_case_as_for_a_config(tmp_path: Path) -> None:
    ids = page_ids(copy_catalogs(tmp_path), "  DeepSeek-FP8: {family: deepseek, precision: fp8}\n")
    assert ids == {
        "DeepSeek-FP8.md": [
            ("Benchmark job", "deepseek-r1-fp8-tp4"),
            ("Benchmark job", "deepseek-r1-fp8-tp8"),
            ("Benchmark job", "deepseek-r1-fp8-mesh-dpa4-ep4"),
            ("Benchmark job", "deepseek-r1-fp8-mesh-dpa8-ep8-8192x1"),
            ("Benchmark job", "deepseek-r1-fp8-mesh-dpa8-ep8-1x1024"),
            ("Accuracy case", "deepseek-r1-fp8-tp4"),
            ("Accuracy case", "deepseek-r1-fp8-tp8"),
        ]
    }


def test_a_suite_selector_picks_the_cases_linked_to_that_suite(tmp_path: Path) -> None:
    ids = page_ids(copy_catalogs(tmp_path), "  Mesh: {suite: SGLang-Mesh}\n")
    assert [kind for kind, _ in ids["Mesh.md"]] == ["Benchmark job"] * 17
    oob = page_ids(copy_catalogs(tmp_path / "b"), "  OOB: {suite: SGLang-OOB}\n")
    linked = [i for kind, i in oob["OOB.md"] if kind == "Accuracy case"]
    assert len(linked) == 10
    assert "qwen3-5-35b-a3b-fp8-tp2" not in linked
