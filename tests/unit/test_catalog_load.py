"""generator.catalog.load: both catalogs read, validated and typed; errors name the file as
the user typed it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from generator.catalog import ACCURACY, BENCHMARK, load
from generator.errors import CatalogError
from tests.helpers import FIXTURE, copy_catalogs, edit


def test_the_fixture_catalogs_load_into_the_spec_s_shape() -> None:
    catalog = load(FIXTURE)
    assert (catalog.benchmark_file, catalog.accuracy_file) == (
        os.path.normpath(FIXTURE / BENCHMARK),
        os.path.normpath(FIXTURE / ACCURACY),
    )
    assert (len(catalog.configs), len(catalog.suites), len(catalog.cases)) == (22, 2, 16)
    assert [s.name for s in catalog.schedules] == [
        "oob-deepseek-non-mtp",
        "oob-deepseek-mtp-qwen",
        "mesh-all",
        "oob-all",
    ]
    assert [title for title, _ in catalog.recipes] == ["DeepSeek-R1", "Qwen3.5"]
    assert catalog.default_image == "rocm/atom-dev:sglang-latest"


def test_run_in_the_checkout_an_error_names_the_path_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_catalogs(tmp_path)
    line = edit(root / ACCURACY, "threshold: 0.91", "threshold: high")
    with pytest.raises(CatalogError) as elsewhere:
        load(root)
    assert str(elsewhere.value).startswith(f"{root / ACCURACY}:{line}: ")
    monkeypatch.chdir(root)
    with pytest.raises(CatalogError) as inside:
        load(Path())
    assert str(inside.value) == (
        f'{ACCURACY}:{line}: cases[0].threshold: expected a number, found string "high"'
    )


def test_a_missing_catalog_is_one_line_naming_it(tmp_path: Path) -> None:
    root = copy_catalogs(tmp_path)
    (root / BENCHMARK).unlink()
    with pytest.raises(CatalogError) as info:
        load(root)
    assert (
        str(info.value) == f"{root / BENCHMARK}:1: cannot read catalog: No such file or directory"
    )
