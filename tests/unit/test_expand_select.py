"""generator.expand.select: the server mode a suite may run, the images a mode refuses, and
the image a job runs in."""

from __future__ import annotations

import pytest

from generator.errors import SelectionError
from generator.expand.select import check_mode, image_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from generator.expand.expanded import Expanded


def test_a_suite_runs_only_its_own_modes_and_a_mode_only_its_pattern_s_images(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    check_mode(catalog, ["SGLang-Mesh"], "sglang-mori", "lmsysorg/sglang-rocm:v1")
    with pytest.raises(SelectionError) as info:
        check_mode(catalog, ["SGLang-OOB"], "sglang-mori", None)
    assert (
        str(info.value) == "suite SGLang-OOB has no server mode 'sglang-mori' (it has: sglang-atom)"
    )
    with pytest.raises(SelectionError) as info:
        check_mode(catalog, ["SGLang-Mesh"], "sglang-mori", "docker.io/lmsysorg/sglang-rocm:v1")
    assert str(info.value) == (
        "server mode 'sglang-mori' runs only on lmsysorg/sglang-rocm* images, not "
        "'docker.io/lmsysorg/sglang-rocm:v1'"
    )


def test_a_job_runs_the_override_else_the_default_unless_its_mode_needs_its_own(
    fixture: Expanded,
) -> None:
    catalog = fixture.catalog
    assert image_for(catalog, None, "x:1") == "x:1"
    assert image_for(catalog, None, None) == "rocm/atom-dev:sglang-latest"
    assert image_for(catalog, "sglang-mori", None) == ""
