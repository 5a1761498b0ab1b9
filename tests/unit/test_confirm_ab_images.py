"""The images an A/B compares, read from the history (generator/confirm/ab_images.py)."""

from __future__ import annotations

import json
from typing import Any, cast

from generator.confirm.ab_images import candidates, job_side, server_image
from generator.confirm.events import parse
from tests.unit.test_confirm_issues import event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import JobEntry

DIGEST = "sha256:" + "a" * 64


def record(started: str, digest: str, tag: str = "nightly") -> dict[str, Any]:
    image = {"requested": f"rocm/atom-dev:{tag}", "tag": tag, "digest": digest}
    return {"schema": "sglang-ci/record/1", "kind": "point", "config": "deepseek-r1-fp8-tp4",
            "timings": {"started_at": started}, "provenance": {"image": image}}  # fmt: skip


def keep(history: Path, run: str, *records: dict[str, Any]) -> None:
    (history / run).mkdir(parents=True)
    for i, data in enumerate(records):
        (history / run / f"r{i}.json").write_text(json.dumps(data))


def test_a_jobs_image_is_a_side_only_when_pinned_by_digest() -> None:
    job = {"image": "rocm/atom-dev:nightly", "image_tag": "nightly", "image_digest": DIGEST}
    assert job_side(cast("JobEntry", job), "run-07") == {
        "image": f"rocm/atom-dev@{DIGEST}",
        "image_requested": "rocm/atom-dev:nightly",
        "image_tag": "nightly",
        "image_digest": DIGEST,
        "run": "run-07",
    }
    pinned = {"image": f"rocm/atom-dev@{DIGEST}", "image_digest": DIGEST}
    assert job_side(cast("JobEntry", pinned), None) == {
        "image": f"rocm/atom-dev@{DIGEST}",
        "image_requested": f"rocm/atom-dev@{DIGEST}",
        "image_tag": "",
        "image_digest": DIGEST,
        "run": None,
    }
    assert job_side(cast("JobEntry", {"image": "rocm/atom-dev:nightly"}), None) is None


def test_the_nightlies_between_a_and_b_oldest_first_each_once(tmp_path: Path) -> None:
    found = parse({"schema": "sglang-ci/verdicts/2", "events": [event()]}, "v").events[0]
    digests = ["sha256:" + c * 64 for c in "abcd"]
    keep(tmp_path, "run-06", record("2026-01-06T00:00:00", digests[0], "n6"))
    keep(tmp_path, "run-08", record("2026-01-08T00:00:00", digests[2]))
    keep(tmp_path, "run-07", record("2026-01-07T00:00:00", digests[1]))
    keep(tmp_path, "run-09", record("2026-01-09T00:00:00", digests[1]))
    keep(tmp_path, "run-10", record("2026-01-10T00:00:00", digests[3]))
    a = server_image(tmp_path, "run-06", found)
    assert a is not None
    assert (a["image"], a["image_tag"], a["run"]) == (f"rocm/atom-dev@{digests[0]}", "n6", "run-06")
    b = server_image(tmp_path, "run-10", found)
    assert b is not None
    assert [c["image_digest"] for c in candidates(tmp_path, a, b)] == digests[1:3]
    assert server_image(tmp_path, "run-05", found) is None
