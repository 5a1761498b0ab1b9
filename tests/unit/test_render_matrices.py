"""`generator.render.matrices`: where each committed matrix lives and what it holds: a run's
jobs in the image of its mode, an accuracy level's case runs."""

from __future__ import annotations

from generator.render.matrices import (
    accuracy_path,
    benchmark_path,
    level_entries,
    level_matrix,
    run_matrix,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_each_matrix_has_its_path_under_the_matrices_directory() -> None:
    assert (
        benchmark_path("schedule", "mesh-all")
        == ".github/matrices/benchmark/schedule/mesh-all.json"
    )
    assert benchmark_path("preset", "all-qwen", "sglang-mesh", "sglang-mori") == (
        ".github/matrices/benchmark/preset/sglang-mesh/sglang-mori/all-qwen.json"
    )
    assert accuracy_path("nightly") == ".github/matrices/accuracy/nightly.json"


def test_a_run_s_matrix_is_its_jobs_in_the_default_image(fixture: Expanded) -> None:
    [mesh] = [s for s in fixture.schedules if s.name == "mesh-all"]
    matrix = run_matrix(fixture, mesh.default_run)
    assert list(matrix) == ["include"]
    assert [e["id"] for e in matrix["include"]] == [j.id for j in mesh.default_run.jobs]
    assert len(matrix["include"]) == 17
    assert {e["image"] for e in matrix["include"]} == {"rocm/atom-dev:sglang-latest"}


def test_a_mode_with_an_image_pattern_leaves_the_image_to_the_dispatch(fixture: Expanded) -> None:
    run = next(
        run
        for p in fixture.presets
        for mode, run in p.runs.items()
        if mode == "sglang-mori" and run.jobs
    )
    assert {e["image"] for e in run_matrix(fixture, run)["include"]} == {""}


def test_a_level_s_matrix_holds_the_case_runs_of_that_level(fixture: Expanded) -> None:
    nightly = level_entries(fixture, "nightly")
    pr = level_entries(fixture, "pr")
    assert (len(fixture.case_runs), len(nightly), len(pr)) == (17, 17, 3)
    assert [e["id"] for e in pr] == [r.id for r in fixture.case_runs if "pr" in r.case.levels]
    assert pr[0]["id"] == "deepseek-r1-fp8-tp4"
    assert level_matrix(fixture, "pr") == {"include": pr}
    assert level_entries(fixture, "weekly") == []
