"""Every matrix entry the generator writes is an input the launcher accepts."""

from __future__ import annotations

import json

import pytest

from generator.core.entry_checks import check_case, check_job
from generator.core.exits import InputError
from tests.helpers import ROOT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def entry_errors(root: Path, folder: str) -> tuple[int, list[str]]:
    files = sorted((root / ".github/matrices" / folder).rglob("*.json"))
    check = check_job if folder == "benchmark" else check_case
    errors: list[str] = []
    for path in files:
        for entry in json.loads(path.read_text(encoding="utf-8"))["include"]:
            try:
                check(entry, f"{path.name}:{entry.get('id')}")
            except InputError as exc:
                errors.append(str(exc))
    return len(files), errors


@pytest.mark.parametrize("folder", ["benchmark", "accuracy"])
def test_every_committed_matrix_entry_passes_the_launcher_checks(folder: str) -> None:
    files, errors = entry_errors(ROOT, folder)
    assert files > 0
    assert errors == []


def test_the_fixture_renders_one_matrix_per_group_preset_mode_and_level(
    rendered_fixture: Path,
) -> None:
    # 4 cron groups; 17 OOB presets; 18 Mesh presets in each of 2 server modes; 2 levels.
    assert entry_errors(rendered_fixture, "benchmark") == (4 + 17 + 18 * 2, [])
    assert entry_errors(rendered_fixture, "accuracy") == (2, [])
