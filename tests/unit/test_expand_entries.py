"""generator.expand.entries: the job, point and case entries of the launcher's contract."""

from __future__ import annotations

import dataclasses

from generator.catalog.catalog_types import PER_SERVER
from generator.core.entry_checks import check_case, check_job
from generator.expand.entries import (
    case_entry,
    cell_entry,
    draft_tokens,
    fingerprint,
    job_entry,
    point_entry,
)
from generator.expand.estimate import shown
from tests.helpers import copy_catalogs, edit, expanded_at

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.expand.expanded import Expanded

IMAGE = "rocm/atom-dev:sglang-latest"


def test_a_job_entry_is_what_the_launcher_accepts_with_whole_minutes(fixture: Expanded) -> None:
    catalog = fixture.catalog
    job = fixture.jobs[("deepseek-r1-fp4-tp8-mtp3", "sglang-atom", PER_SERVER)][0]
    entry = check_job(dict(job_entry(catalog, job, IMAGE)), "job.json")
    assert (entry["id"], entry["config"], entry["image"], entry["gpus"]) == (
        "deepseek-r1-fp4-tp8-mtp3",
        "deepseek-r1-fp4-tp8-mtp3",
        IMAGE,
        8,
    )
    assert (entry["spec"], entry["draft_tokens"], entry["point_timeout_factor"]) == ("mtp3", 3, 3)
    assert entry["server_args"] == list(job.server.args)
    assert [p["id"] for p in entry["points"]] == [c.id for c in job.cells]
    assert entry["points"][0] == point_entry(job.cells[0])
    assert (entry["startup_minutes"], entry["estimate_minutes"]) == (
        shown(job.startup_minutes),
        shown(job.minutes),
    )


def test_the_fingerprint_changes_with_anything_that_starts_another_server(
    fixture: Expanded,
) -> None:
    server = fixture.base_servers["deepseek-r1-fp8-tp4"]
    assert fingerprint(server) == fingerprint(dataclasses.replace(server))
    assert fingerprint(server).startswith("sha256:")
    assert len(fingerprint(server)) == 23
    others = [
        dataclasses.replace(server, args=(*server.args, "--x")),
        dataclasses.replace(server, env=(*server.env, ("A", "1"))),
        dataclasses.replace(server, runner="other"),
        dataclasses.replace(server, mode="sglang-mori"),
        dataclasses.replace(server, model_path="org/other"),
    ]
    assert len({fingerprint(s) for s in [server, *others]}) == 6


def test_draft_tokens_are_the_speculative_steps(fixture: Expanded) -> None:
    server = fixture.base_servers["deepseek-r1-fp4-tp8-mtp1"]
    assert draft_tokens(server) == 1
    assert draft_tokens(fixture.base_servers["deepseek-r1-fp8-tp4"]) is None


def test_a_case_entry_carries_its_levels_timeout_and_evaluator(fixture: Expanded) -> None:
    catalog = fixture.catalog
    [run] = [r for r in fixture.case_runs if r.id == "deepseek-r1-fp8-tp4"]
    nightly = check_case(dict(case_entry(catalog, run, "nightly")), "case.json")
    pr = case_entry(catalog, run, "pr")
    assert (nightly["level"], nightly["timeout_minutes"]) == ("nightly", 240)
    assert (pr["level"], pr["timeout_minutes"]) == ("pr", 180)
    assert nightly["evaluator"]["kind"] == "lm-eval"
    assert nightly["evaluator"]["model_args"] == {
        "num_concurrent": 65,
        "max_retries": 1,
        "tokenized_requests": False,
        "trust_remote_code": True,
    }


def test_a_cell_entry_is_its_point_and_its_server(fixture: Expanded) -> None:
    cell = fixture.cells[("deepseek-r1-fp8-tp4", "sglang-atom")][0]
    entry = cell_entry(cell, IMAGE)
    assert {k: entry[k] for k in ("id", "pair", "ratio_text", "concurrency", "image")} == {
        "id": "deepseek-r1-fp8-tp4-1024-1024-4-0.8",
        "pair": "1024x1024",
        "ratio_text": "0.8",
        "concurrency": 4,
        "image": IMAGE,
    }
    assert entry["server_args"] == list(cell.server.args)


def test_a_pinned_model_revision_travels_with_its_servers_entries_only(
    tmp_path: Path, fixture: Expanded
) -> None:
    revision = "0123456789abcdef0123456789abcdef01234567"
    root = copy_catalogs(tmp_path)
    edit(
        root / "catalogs/benchmark.yaml",
        "    path: Qwen/Qwen3.5-397B-A17B-FP8\n",
        f"    path: Qwen/Qwen3.5-397B-A17B-FP8\n    revision: {revision}\n",
    )
    pinned = expanded_at(root)
    seen = set()
    for key, jobs in pinned.jobs.items():
        for job, before_job in zip(jobs, fixture.jobs[key], strict=True):
            entry = check_job(dict(job_entry(pinned.catalog, job, IMAGE)), "job.json")
            before = job_entry(fixture.catalog, before_job, IMAGE)
            if job.server.model_path == "Qwen/Qwen3.5-397B-A17B-FP8":
                seen.add(job.id)
                assert entry.get("model_revision") == revision
                assert entry["server_fingerprint"] != before["server_fingerprint"]
            else:
                assert "model_revision" not in entry
                assert entry == before
    assert seen
