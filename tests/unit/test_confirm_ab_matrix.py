"""The A/B and A/A matrices (generator/confirm/ab_matrix.py)."""

from __future__ import annotations

from typing import Any, cast

import pytest

from generator.catalog.confirm_section import Confirm
from generator.catalog.regression import Policy
from generator.confirm.ab_matrix import Skipped, aa_entries, build, markdown, size
from generator.confirm.events import parse
from generator.results.record import ResultsError
from tests.unit.test_confirm_ab_images import DIGEST
from tests.unit.test_confirm_issues import event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.core.contract import JobEntry

POLICY = Policy(confirm=Confirm(enabled=True, repeats=2, max_points=1, bisect=False))
POINTS = [{"id": "p1", "estimate_minutes": 5}, {"id": "p2", "estimate_minutes": 5}]
JOB: Any = {"id": "job-1", "config": "ds-tp4", "runner": "mi355", "image": f"rocm/atom@{DIGEST}",
       "image_digest": DIGEST, "startup_minutes": 10, "timeout_minutes": 60,
       "points": POINTS}  # fmt: skip


def derive(job: JobEntry) -> JobEntry:
    return cast("JobEntry", {"derived": [p["id"] for p in job["points"]]})


def test_an_a_a_measures_a_jobs_first_points_on_its_image_on_both_sides() -> None:
    (entry,) = aa_entries([JOB], POLICY, derive)
    found: dict[str, Any] = dict(entry)
    conf = found.pop("confirmation")
    side = {"image": JOB["image"], "image_requested": JOB["image"], "image_tag": "",
            "image_digest": DIGEST, "run": None}  # fmt: skip
    # 3 launches of 10 minutes and 2 sides x 2 repeats x 5 minutes, twice over
    assert found == {**JOB, "derived": ["p1"], "timeout_minutes": 100}
    assert conf == {
        "event": "aa-job-1",
        "repeats": 2,
        "level": 0.95,
        "metrics": {"output_throughput_per_gpu": {"higher_is_better": True, "min_change": 0.05}},
        "a": side,
        "b": side,
        "candidates": [],
        "max_bisect_steps": 0,
    }


def test_an_a_a_refuses_an_image_not_pinned_by_digest() -> None:
    unpinned = cast("JobEntry", {**JOB, "image": "rocm/atom:n", "image_digest": None})
    with pytest.raises(ResultsError, match=r"^job job-1: its image rocm/atom:n is not pinned"):
        aa_entries([unpinned], POLICY, derive)


def test_no_a_b_when_confirmation_is_off_and_a_skipped_event_says_why(tmp_path: Path) -> None:
    verdicts = parse({"schema": "sglang-ci/verdicts/2", "events": [event("suspected")]}, "v")
    assert build(verdicts, [JOB], tmp_path, Policy(), derive) == ([], [])
    entries, skipped = build(verdicts, [JOB], tmp_path, POLICY, derive)
    assert (entries, skipped) == ([], [Skipped(event="ev-3f2a9c41d07b",
            config="deepseek-r1-fp8-tp4", reason="no job of this run serves it")])  # fmt: skip
    assert markdown([], skipped) == [
        "### A/B confirmation jobs",
        "",
        "- event `ev-3f2a9c41d07b` (deepseek-r1-fp8-tp4) has no A/B: no job of this run serves it",
        "",
    ]
    assert markdown([], []) == []
    assert size([-0.02, None, 0.08, -0.1]) == 0.1
