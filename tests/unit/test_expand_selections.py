"""generator.expand.selections: cron groups and presets, refused when they select nothing."""

from __future__ import annotations

import pytest

from generator.catalog import BENCHMARK
from generator.errors import CatalogError
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_cron_group_that_selects_nothing_is_refused_at_its_selector(tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(
        root / BENCHMARK,
        "    select: {suite: SGLang-Mesh}\n",
        "    select: {suite: SGLang-Mesh, family: qwen}\n",
    )
    with pytest.raises(CatalogError) as info:
        expanded_at(root)
    assert str(info.value) == f"{root / BENCHMARK}:{line}: cron group 'mesh-all' selects no config"
