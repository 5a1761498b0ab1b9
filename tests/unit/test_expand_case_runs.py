"""generator.expand.case_runs: one run per image a case pins."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_a_case_that_pins_images_runs_once_per_image(fixture: Expanded) -> None:
    runs = [r for r in fixture.case_runs if r.case.id == "deepseek-r1-mxfp4-tp4-mtp"]
    assert [(r.id, r.name) for r in runs] == [
        ("deepseek-r1-mxfp4-tp4-mtp-rocm700", "DeepSeek-R1-MXFP4 TP4 MTP (rocm700)"),
        ("deepseek-r1-mxfp4-tp4-mtp-rocm720", "DeepSeek-R1-MXFP4 TP4 MTP (rocm720)"),
    ]
    assert runs[0].server == runs[1].server  # one server, two images
    plain = [r for r in fixture.case_runs if r.case.id == "deepseek-r1-fp8-tp4"]
    assert [(r.id, r.image) for r in plain] == [
        ("deepseek-r1-fp8-tp4", "rocm/atom-dev:sglang-latest")
    ]
