"""MODEL_CACHE: the server gets local snapshots, missing ones are downloaded once (under a
lock, also by launchers started together), a failed download leaves nothing complete."""

from __future__ import annotations

from typing import Any

import pytest

from generator.core import commands
from generator.core.entry_checks import check_job
from generator.launch import models
from tests.launchers.support import (
    CATALOG_SGLANG,
    Harness,
    assert_valid_record,
    complete_snapshot,
    fixture_job,
    running,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SCRIPT = "run_benchmark.sh"
MODEL = "amd/DeepSeek-R1-0528-MXFP4-v2"
DRAFT = "SGLang/DeepSeek-R1-NextN"


def mtp_job() -> dict[str, Any]:
    """The fixture's MTP job whose points have one output token (no acceptance needed)."""
    job = fixture_job("--preset", "ds-fp4-tp4-mtp")
    assert job["spec"] == "mtp3"
    assert DRAFT in job["server_args"]
    job["points"] = job["points"][:1]
    return job


def served_models(argv: list[str]) -> tuple[str, str]:
    return argv[argv.index("--model-path") + 1], argv[
        argv.index("--speculative-draft-model-path") + 1
    ]


def test_complete_snapshots_go_to_the_server_as_local_paths_without_a_download(
    harness: Harness, tmp_path: Path
) -> None:
    harness.model_cache = tmp_path / "cache"
    for model in (MODEL, DRAFT):
        complete_snapshot(harness.model_cache, model)
    job = mtp_job()
    run = harness.run(SCRIPT, harness.write_json("job.json", job), CATALOG_SGLANG)

    assert run.returncode == 0, run.stdout + run.stderr
    assert harness.hf_records() == []
    [server] = harness.server_records()
    local = (str(harness.model_cache / MODEL), str(harness.model_cache / DRAFT))
    assert served_models(server["argv"]) == local
    entry = check_job(job, "job")
    [client] = harness.client_records()
    assert [harness.where.python, "-m", client["tool"], *client["argv"]] == commands.bench_argv(
        entry, entry["points"][0], harness.where
    )
    assert client["argv"][client["argv"].index("--tokenizer") + 1] == local[0]
    record = harness.result(job["points"][0]["id"])
    assert_valid_record(record)
    assert (record["model_path"], record["served_model_path"]) == (MODEL, local[0])
    assert record["timings"]["download_s"] == 0.0


def test_an_empty_cache_downloads_each_model_once_then_serves_the_local_paths(
    harness: Harness, tmp_path: Path
) -> None:
    harness.model_cache = tmp_path / "cache"
    job = mtp_job()
    run = harness.run(SCRIPT, harness.write_json("job.json", job), CATALOG_SGLANG)

    assert run.returncode == 0, run.stdout + run.stderr
    cache = harness.model_cache
    assert [r["argv"] for r in harness.hf_records()] == [
        ["download", MODEL, "--local-dir", str(cache / MODEL)],
        ["download", DRAFT, "--local-dir", str(cache / DRAFT)],
    ]
    assert [models.missing(cache / m) for m in (MODEL, DRAFT)] == [None, None]
    [server] = harness.server_records()
    assert served_models(server["argv"]) == (str(cache / MODEL), str(cache / DRAFT))
    download_s = harness.result(job["points"][0]["id"])["timings"]["download_s"]
    assert isinstance(download_s, float)
    assert download_s > 0


def test_two_launchers_on_one_cache_download_each_model_once(tmp_path: Path) -> None:
    cache, hf_record = tmp_path / "cache", tmp_path / "hf-record.jsonl"
    harnesses = [Harness(tmp_path / name, model_cache=cache) for name in ("a", "b")]
    env = {
        "SGLANG_STANDIN_HF_RECORD": str(hf_record),
        "SGLANG_STANDIN_HF_SLEEP_S": "0.3",
        **CATALOG_SGLANG,
    }
    procs = [h.start(SCRIPT, h.write_json("job.json", mtp_job()), env) for h in harnesses]
    outputs = [proc.communicate(timeout=60) for proc in procs]

    assert [proc.returncode for proc in procs] == [0, 0], outputs
    downloads = sorted(
        line.split('"download", ')[1].split(",")[0] for line in hf_record.read_text().splitlines()
    )
    assert downloads == [f'"{DRAFT}"', f'"{MODEL}"']
    for h in harnesses:
        [server] = h.server_records()
        assert served_models(server["argv"]) == (str(cache / MODEL), str(cache / DRAFT))
        assert running(h.pids()) == []


@pytest.mark.fault
def test_a_failed_download_exits_2_and_leaves_no_complete_looking_snapshot(
    harness: Harness, tmp_path: Path
) -> None:
    harness.model_cache = tmp_path / "cache"
    job = mtp_job()
    run = harness.run(SCRIPT, harness.write_json("job.json", job), {"SGLANG_STANDIN_HF_FAIL": "1"})

    assert run.returncode == 2, run.stdout + run.stderr
    snapshot = harness.model_cache / MODEL
    assert (snapshot / "config.json").is_file()
    assert models.missing(snapshot) == f"{models.MARKER} is there (a download did not finish)"
    assert len(harness.hf_records()) == 1
    assert harness.server_records() == []
    record = harness.result(job["points"][0]["id"])
    assert record["status"] == "failed"
    assert record["error"].startswith(
        f"infrastructure: hf download {MODEL} exited with status 1:\n"
    )
    assert f"standin: download of {MODEL} failed half-way" in record["error"]
    assert (
        record["validity"]["reason"] == "infrastructure error: " + record["error"].split(": ", 1)[1]
    )


@pytest.mark.fault
@pytest.mark.fault
def test_a_cache_that_cannot_be_read_is_an_infrastructure_failure_naming_the_path(
    harness: Harness, tmp_path: Path
) -> None:
    # As root, no permission bit stops a read; a name longer than the file system takes
    # fails the same way an unreadable (root-squashed) directory does: an OSError on stat.
    harness.model_cache = tmp_path / ("c" * 300)
    job = mtp_job()
    run = harness.run(SCRIPT, harness.write_json("job.json", job), CATALOG_SGLANG)

    assert run.returncode == 2, run.stdout + run.stderr
    assert "bug in the launcher" not in run.stdout + run.stderr
    assert (harness.server_records(), harness.hf_records()) == ([], [])
    error = harness.result(job["points"][0]["id"])["error"]
    assert error.startswith(
        f"infrastructure: cannot read the model cache at {harness.model_cache}/{MODEL}: "
    ), error
    assert "File name too long" in error


@pytest.mark.fault
def test_a_cache_that_cannot_be_written_is_an_infrastructure_failure(
    harness: Harness, tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("not a directory\n", encoding="utf-8")
    harness.model_cache = tmp_path / "file" / "cache"
    job = mtp_job()
    run = harness.run(SCRIPT, harness.write_json("job.json", job), CATALOG_SGLANG)

    assert run.returncode == 2, run.stdout + run.stderr
    assert (harness.server_records(), harness.hf_records()) == ([], [])
    error = harness.result(job["points"][0]["id"])["error"]
    assert error.startswith(f"infrastructure: cannot fill the model cache for {MODEL}: ")
    assert "Not a directory" in error


def test_a_read_only_cache_is_linked_from_the_job_s_downloads_and_never_written(
    harness: Harness, tmp_path: Path
) -> None:
    # A pull request's run: MODEL_CACHE mounted read-only, MODEL_DOWNLOADS in the job's
    # scratch. The complete model is read in place; the missing draft goes to the scratch.
    harness.model_cache = tmp_path / "cache"
    complete_snapshot(harness.model_cache, MODEL)
    before = sorted(str(p) for p in harness.model_cache.rglob("*"))
    downloads = tmp_path / "scratch" / "models"
    job = mtp_job()
    env = {**CATALOG_SGLANG, "MODEL_DOWNLOADS": str(downloads)}
    run = harness.run(SCRIPT, harness.write_json("job.json", job), env)

    assert run.returncode == 0, run.stdout + run.stderr
    assert [r["argv"] for r in harness.hf_records()] == [
        ["download", DRAFT, "--local-dir", str(downloads / DRAFT)],
    ]
    [server] = harness.server_records()
    assert served_models(server["argv"]) == (str(downloads / MODEL), str(downloads / DRAFT))
    assert (downloads / MODEL).resolve() == harness.model_cache / MODEL
    assert sorted(str(p) for p in harness.model_cache.rglob("*")) == before


def test_a_pinned_revision_is_downloaded_into_its_own_snapshot_and_given_to_the_server(
    harness: Harness, tmp_path: Path
) -> None:
    harness.model_cache = tmp_path / "cache"
    complete_snapshot(harness.model_cache, MODEL)  # the unpinned snapshot: not this revision
    complete_snapshot(harness.model_cache, DRAFT)
    revision = "0123456789abcdef0123456789abcdef01234567"
    job = {**mtp_job(), "model_revision": revision}
    run = harness.run(SCRIPT, harness.write_json("job.json", job), CATALOG_SGLANG)

    assert run.returncode == 0, run.stdout + run.stderr
    pinned = harness.model_cache / f"{MODEL}@{revision}"
    assert [r["argv"] for r in harness.hf_records()] == [
        ["download", MODEL, "--revision", revision, "--local-dir", str(pinned)],
    ]
    [server] = harness.server_records()
    assert served_models(server["argv"]) == (str(pinned), str(harness.model_cache / DRAFT))
    assert server["argv"][server["argv"].index("--revision") + 1] == revision
