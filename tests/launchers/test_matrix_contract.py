"""Every committed matrix entry is an input the launchers accept."""

from __future__ import annotations

import importlib.util
import json
from types import ModuleType

import pytest

from .support import REPO, SCRIPTS

MATRICES = REPO / ".github" / "matrices"


def launcher_helper() -> ModuleType:
    path = SCRIPTS / "lib" / "launcher.py"
    spec = importlib.util.spec_from_file_location("launcher_helper", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("folder", "kind", "count"), [("benchmark", "job", 4 + 17 + 15 * 2), ("accuracy", "case", 2)]
)
def test_every_committed_matrix_entry_passes_the_launcher_validation(
    folder: str, kind: str, count: int
) -> None:
    # 4 cron groups; 17 OOB presets; 15 Mesh presets in each of 2 server modes.
    files = sorted((MATRICES / folder).rglob("*.json"))
    assert len(files) == count
    helper = launcher_helper()
    check = helper.check_job if kind == "job" else helper.check_case
    errors: list[str] = []
    for path in files:
        matrix = json.loads(path.read_text(encoding="utf-8"))
        for entry in matrix["include"]:
            try:
                check(entry, f"{path.name}:{entry.get('id')}")
            except helper.InputError as exc:
                errors.append(str(exc))
    assert errors == []
