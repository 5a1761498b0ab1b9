"""generator/results/admit.py: one run written into a history, with its manifest."""

from __future__ import annotations

import json

from generator.results.admit import Admitted, admit
from generator.results.admit_images import Images
from generator.results.runs import MANIFEST_SCHEMA
from generator.results.store import COMPACT_FILE
from tests.results_gen import IMAGE, Point, Run, point_record, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

IMAGES = Images(repositories=(IMAGE.partition(":")[0],))
RECORD = "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-4.json"


def test_a_run_is_admitted_once_with_its_manifest_and_compact_file(tmp_path: Path) -> None:
    run = Run(day=0)
    artifact = write_run(tmp_path / "artifact", run, [point_record(run, Point())])
    (artifact / "summary.md").write_text("# summary")
    history = tmp_path / "history"
    admitted = admit([artifact], history, "night-1", images=IMAGES, environ={})
    assert admitted == Admitted(path=history / "night-1", records=1, left_out=("summary.md",))
    manifest = json.loads((history / "night-1" / "manifest.json").read_text())
    assert (manifest["schema"], manifest["name"], manifest["started_at"]) == (
        MANIFEST_SCHEMA, "night-1", "2026-11-01T02:00:00Z",
    )  # fmt: skip
    assert (manifest["records"], manifest["compact"]) == (
        {"count": 1, "files": [RECORD]},
        COMPACT_FILE,
    )
    assert sorted(p.name for p in (history / "night-1").iterdir()) == [
        "ds-fp8-tp8-1024x1024", "manifest.json", COMPACT_FILE,
    ]  # fmt: skip
    again = admit([artifact], history, "night-1", images=IMAGES, environ={})
    assert (again.path, again.again) == (history / "night-1", True)
