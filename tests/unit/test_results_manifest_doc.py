"""generator/results/manifest_doc.py: an admitted run's manifest read back, and nothing
else taken for one."""

from __future__ import annotations

import json

from generator.results.manifest_doc import read_manifest
from generator.results.runs import MANIFEST, MANIFEST_SCHEMA

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_a_manifest_is_read_only_when_it_is_one(tmp_path: Path) -> None:
    (tmp_path / MANIFEST).write_text(json.dumps({"schema": MANIFEST_SCHEMA, "name": "run-a"}))
    assert dict(read_manifest(tmp_path / MANIFEST) or {}) == {
        "schema": MANIFEST_SCHEMA,
        "name": "run-a",
    }
    others = {
        "verdicts.json": json.dumps({"schema": "sglang-ci/verdicts/2"}),
        "list.json": json.dumps([MANIFEST_SCHEMA]),
        "broken.json": '{"schema": ',
    }
    for name, text in others.items():
        (tmp_path / name).write_text(text)
    assert [read_manifest(tmp_path / name) for name in [*others, "absent.json"]] == [None] * 4
