"""`generator.render.docs`: the generated docs' data: the runners page (each label, who uses
it, the image builder), the coverage page, and the recipe pages, which select configs and
accuracy cases with the same selector over their fields."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from generator.catalog.server_types import ImageBuild
from generator.errors import Loc
from generator.render.docs import _pairs, coverage, recipes, runners
from generator.render.templates import Templates, templates_dir
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded


class _Recorded:
    """A stand-in for the templates: each render's name and context, rendered as the name."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, name: str, **context: Any) -> str:
        self.calls.append((name, context))
        return name


def test_the_runners_page_lists_each_label_and_who_uses_it(fixture: Expanded) -> None:
    t = _Recorded()
    assert runners(fixture, t) == {"docs/runners.md": "runners.md.j2"}  # type: ignore[arg-type]
    [(name, context)] = t.calls
    assert name == "runners.md.j2"
    assert context["builder"] is None
    rows = {r["label"]: r for r in context["runners"]}
    assert list(rows) == ["atom-mi355-8gpu-aac-runner", "linux-atom-mi35x-4", "linux-atom-mi35x-8"]
    four = rows["linux-atom-mi35x-4"]
    assert {k: v for k, v in four.items() if k not in ("options", "users")} == {
        "label": "linux-atom-mi35x-4",
        "gpus": 4,
        "count": 1,
        "model_cache": "/mnt/raid0/pretrained_model",
        "allocation_file": "/etc/podinfo/gha-render-devices",
    }
    assert four["options"].endswith("`--ulimit=stack=67108864` `--shm-size=16g`")
    assert four["users"] == [
        "case `deepseek-r1-fp8-tp4`",
        "case `qwen3-5-35b-a3b-fp8-tp2`",
        "case `qwen3-5-35b-a3b-tp2`",
        "case `qwen3-5-397b-a17b-fp8-tp4`",
        "case `deepseek-r1-fp4-tp4`",
    ]
    assert len(rows["atom-mi355-8gpu-aac-runner"]["users"]) == 22  # every config
    assert all(u.startswith("config ") for u in rows["atom-mi355-8gpu-aac-runner"]["users"])


def test_a_runner_without_container_options_says_none_and_the_builder_is_named(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    bare = dataclasses.replace(catalog.runners[1], container_options=())
    build = ImageBuild(
        runner="atom-builder",
        repository="ghcr.io/example/pr",
        base="rocm/atom-dev:sglang-latest",
        server_mode="sglang-atom",
        dockerfile="Dockerfile",
        context=".",
        paths=("Dockerfile",),
        args=(),
        timeout_minutes=60,
        loc=Loc("catalogs/benchmark.yaml", 1),
    )
    runners_of = (catalog.runners[0], bare, *catalog.runners[2:])
    expanded = dataclasses.replace(
        fixture, catalog=dataclasses.replace(catalog, runners=runners_of, image_build=build)
    )
    t = _Recorded()
    runners(expanded, t)  # type: ignore[arg-type]
    [(_, context)] = t.calls
    assert context["runners"][1]["options"] == "none"
    assert context["builder"] == {
        "runner": "atom-builder",
        "base": "rocm/atom-dev:sglang-latest",
        "repository": "ghcr.io/example/pr",
    }


def test_the_coverage_page_is_the_coverage_template(fixture: Expanded) -> None:
    t = _Recorded()
    assert coverage(fixture, t) == {"docs/coverage.md": "coverage.md.j2"}  # type: ignore[arg-type]
    [(_, context)] = t.calls
    assert list(context) == ["tables"]
    assert context["tables"].startswith("## ")


def test_a_job_of_some_pairs_is_titled_with_them() -> None:
    assert _pairs("deepseek-r1-fp8-mesh-dpa8-ep8-8192x1", "deepseek-r1-fp8-mesh-dpa8-ep8") == (
        " (8192x1)"
    )
    assert _pairs("q-tp4-1024x1024-8192x1024", "q-tp4") == " (1024x1024, 8192x1024)"
    assert _pairs("q-tp4", "q-tp4") == ""


def page_ids(root: Path, recipes_text: str) -> dict[str, list[tuple[str, str]]]:
    """Each page's entries as (kind, id)."""
    edit(
        root / "catalogs/benchmark.yaml",
        "recipes:\n  DeepSeek-R1: {family: deepseek}\n  Qwen3.5: {family: qwen}\n",
        "recipes:\n" + recipes_text,
    )
    pages = recipes(expanded_at(root), Templates(templates_dir(root)))
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
