"""`sglang-ci results admit`: a run enters the history only when its records validate, with
its manifest and compact file; histories of the earlier layout stay readable."""

from __future__ import annotations

import json
import shutil
from typing import Any

from click.testing import CliRunner, Result

from generator.cli.sglang_ci import main
from generator.results.load import open_store
from generator.results.store import COMPACT_FILE
from tests.helpers import FIXTURE
from tests.results_gen import Point, Run, Shape, case_record, point_record, sweep, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

POINTS = sweep(concurrencies=(4, 16, 64))
GITHUB = {
    "GITHUB_WORKFLOW": "Benchmark",
    "GITHUB_RUN_NUMBER": "42",
    "GITHUB_RUN_ID": "7003",
    "GITHUB_RUN_ATTEMPT": "1",
    "GITHUB_REPOSITORY": "example/sglang-ci",
    "GITHUB_SERVER_URL": "https://github.com",
}


def invoke(tmp_path: Path, *args: str) -> Result:
    """`sglang-ci results ARGS`; admit reads the fixture catalogs' image repositories."""
    root = FIXTURE if args[0] == "admit" else tmp_path
    return CliRunner(env=GITHUB).invoke(
        main, ["--root", str(root), "results", *args], catch_exceptions=False
    )


def artifact(tmp_path: Path, day: int = 3, name: str = "new") -> Path:
    """A run as the summary job uploads it: records per job, summaries, verdicts."""
    run = Run(day=day)
    root = write_run(tmp_path / name, run, [point_record(run, p) for p in POINTS], name="run")
    write_run(tmp_path / name, run, [case_record(run)], name="run")
    (root / "ds-fp8-tp8-1024x1024" / "summary.md").write_text("### Benchmark\n")
    (tmp_path / name / "verdicts.json").write_text(
        json.dumps({"schema": "sglang-ci/verdicts/1", "exit_code": 0, "points": []})
    )
    (tmp_path / name / "expected.json").write_text(json.dumps({"include": []}))
    return tmp_path / name


def admit(tmp_path: Path, new: Path, name: str = "2026-11-04-benchmark-7003-1") -> Result:
    return invoke(
        tmp_path,
        "admit",
        str(new / "run"),
        "--history",
        str(tmp_path / "history" / "runs"),
        "--name",
        name,
        "--expected",
        str(new / "expected.json"),
        "--verdicts",
        str(new / "verdicts.json"),
    )


def test_a_run_is_admitted_with_its_manifest_and_compact_file(tmp_path: Path) -> None:
    new = artifact(tmp_path)
    result = admit(tmp_path, new)
    run = tmp_path / "history/runs/2026-11-04-benchmark-7003-1"
    assert result.exit_code == 0, result.output
    assert result.stdout == f"admitted 4 records as {run}; left out 1 other files\n"
    files = sorted(p.relative_to(run).as_posix() for p in run.rglob("*") if p.is_file())
    assert files == sorted(
        [
            COMPACT_FILE,
            "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-16.json",
            "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-4.json",
            "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-64.json",
            "gsm8k-ds-fp8/gsm8k-ds-fp8-nightly.json",
            "manifest.json",
        ]
    )
    manifest: dict[str, Any] = json.loads((run / "manifest.json").read_text())
    assert manifest["schema"] == "sglang-ci/manifest/1"
    assert manifest["run"]["workflow"] == "Benchmark"
    assert manifest["run"]["number"] == 42
    assert manifest["run"]["url"] == "https://github.com/example/sglang-ci/actions/runs/7003"
    assert manifest["matrix"] == [{"include": []}]
    assert manifest["verdicts"]["schema"] == "sglang-ci/verdicts/1"
    assert manifest["left_out"] == ["ds-fp8-tp8-1024x1024/summary.md"]
    assert manifest["started_at"] == "2026-11-04T02:00:00Z"
    [image] = manifest["provenance"]["images"]
    assert (image["digest"], image["sglang_version"], image["rocm_version"]) == (
        "sha256:" + "03" * 32,
        "0.5.6",
        "7.0.2",
    )
    assert [p.name for p in (tmp_path / "history/runs").iterdir()] == [run.name]


def _set_image(path: Path, image: dict[str, Any]) -> None:
    data = json.loads(path.read_text())
    data["provenance"]["image"] = image
    path.write_text(json.dumps(data))


def test_a_record_of_an_image_outside_the_declared_repositories_refuses_the_run(
    tmp_path: Path,
) -> None:
    """No select step lets such an image through: the record was not made by this
    repository's GPU jobs, and no baseline may rest on it."""
    new = artifact(tmp_path)
    bad = new / "run" / "ds-fp8-tp8-1024x1024" / "ds-fp8-tp8-1024-1024-16.json"
    evil = "evil.example:5000/rocm/sgl-dev@sha256:" + "ee" * 32
    _set_image(
        bad,
        {"requested": evil, "tag": None, "digest": "sha256:" + "ee" * 32, "pinned": evil,
         "resolution": "digest"},
    )  # fmt: skip
    result = admit(tmp_path, new)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-16.json: image '{evil}' is not of a "
        "declared image repository (docker.io/rocm/atom-dev, docker.io/rocm/sgl-dev, "
        "docker.io/lmsysorg/sglang-rocm): the run is not admitted\n"
    )
    assert not (tmp_path / "history").exists()


def test_records_whose_image_is_not_pinned_are_left_out_and_listed(tmp_path: Path) -> None:
    """A dispatch that turned image resolution off ran a tag: its records never reach a
    baseline, the rest of the run is admitted."""
    new = artifact(tmp_path)
    job = new / "run" / "ds-fp8-tp8-1024x1024"
    unpinned = {"requested": "rocm/sgl-dev:nightly", "tag": "nightly", "digest": None,
                "pinned": None, "resolution": "unpinned"}  # fmt: skip
    for point in (4, 64):
        _set_image(job / f"ds-fp8-tp8-1024-1024-{point}.json", unpinned)
    result = admit(tmp_path, new)
    run = tmp_path / "history/runs/2026-11-04-benchmark-7003-1"
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        f"admitted 2 records as {run}; left out 1 other files; left out 2 records whose image "
        "is not pinned by digest\n"
    )
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["left_out"] == [
        "ds-fp8-tp8-1024x1024/summary.md",
        "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-4.json",
        "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-64.json",
    ]
    assert manifest["records"]["files"] == [
        "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-16.json",
        "gsm8k-ds-fp8/gsm8k-ds-fp8-nightly.json",
    ]
    assert not (run / "ds-fp8-tp8-1024x1024/ds-fp8-tp8-1024-1024-4.json").exists()


def test_the_compact_file_reads_as_the_records_do(tmp_path: Path) -> None:
    new = artifact(tmp_path)
    assert admit(tmp_path, new).exit_code == 0
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    shutil.copytree(new / "run", legacy / "2026-11-04-benchmark-7003-1")  # no link: never read
    columns = "* EXCLUDE (file, run)"
    query = f"SELECT {columns} FROM records ORDER BY kind, id"
    compact = open_store(history=tmp_path / "history/runs")
    plain = open_store(history=legacy)
    assert compact.compact
    assert not plain.compact
    assert compact.rows(query) == plain.rows(query)
    assert len(compact.rows(query)) == 4
    assert compact.rows("SELECT * FROM runs") == plain.rows("SELECT * FROM runs")


def test_a_run_with_a_record_that_does_not_validate_is_refused_whole(tmp_path: Path) -> None:
    new = artifact(tmp_path)
    bad = new / "run" / "ds-fp8-tp8-1024x1024" / "ds-fp8-tp8-1024-1024-4.json"
    data = json.loads(bad.read_text())
    del data["model_path"]
    bad.write_text(json.dumps(data))
    result = admit(tmp_path, new)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: {bad}: record: 'model_path' is a required property (the run is not "
        "admitted: 1 of 4 files claiming to be records do not validate)\n"
    )
    assert not (tmp_path / "history").exists()


def test_a_run_is_never_admitted_twice_nor_with_markdown_verdicts(tmp_path: Path) -> None:
    new = artifact(tmp_path)
    assert admit(tmp_path, new).exit_code == 0
    run = tmp_path / "history/runs/2026-11-04-benchmark-7003-1"
    # Admitted again (the history job of "Re-run failed jobs"): nothing to do.
    again = admit(tmp_path, new)
    assert (again.exit_code, again.stdout) == (
        0, f"already admitted: {run} holds these 4 records\n",
    )  # fmt: skip
    # The same GitHub run under another name (a re-run of every job): the same records
    # are there already; other records of it are refused.
    assert admit(tmp_path, new, name="2026-11-04T23-00-00Z-benchmark-7003-2").exit_code == 0
    record = next(p for p in (new / "run").rglob("*.json") if '"point"' in p.read_text())
    data = json.loads(record.read_text())
    data["metrics"]["output_throughput_per_gpu"] *= 0.9
    record.write_text(json.dumps(data))
    other = admit(tmp_path, new, name="2026-11-04T23-00-00Z-benchmark-7003-2")
    assert other.exit_code == 2
    assert other.stderr == (
        f"error: {run}: the history holds GitHub run 7003 already, with other records; a run "
        "is admitted once (results admit never rewrites one)\n"
    )
    (new / "verdicts.json").write_text("## Verdicts: run against 3 history run(s)\n")
    markdown = admit(tmp_path, new, name="other")
    assert markdown.exit_code == 2
    assert markdown.stderr.startswith(f"error: {new}/verdicts.json: not valid JSON (")
    assert sorted(p.name for p in (tmp_path / "history/runs").iterdir()) == [run.name]


def test_a_history_of_the_earlier_layout_reads_without_warnings(tmp_path: Path) -> None:
    """Earlier history jobs committed compare's Markdown as verdicts.json and the full
    summary as summary-full.md at the top of each run."""
    for day in range(3):
        run = Run(day=day)
        root = write_run(tmp_path / "old", run, [point_record(run, p) for p in POINTS])
        (root / "verdicts.json").write_text("## Verdicts: run against 3 history run(s)\n")
        (root / "summary-full.md").write_text("## Run run\n")
    new = artifact(tmp_path, day=3)
    result = invoke(
        tmp_path,
        "compare",
        "--history",
        str(tmp_path / "old"),
        "--current",
        str(new / "run"),
        "--json",
    )
    assert result.exit_code == 0
    assert result.stderr == ""
    assert json.loads(result.stdout)["history_runs"] == 3


def test_a_compact_file_of_another_version_is_passed_over_for_the_json(tmp_path: Path) -> None:
    new = artifact(tmp_path)
    assert admit(tmp_path, new).exit_code == 0
    run = tmp_path / "history/runs/2026-11-04-benchmark-7003-1"
    (run / COMPACT_FILE).rename(run / "records-000000000000.parquet")
    store = open_store(history=tmp_path / "history/runs")
    assert store.compact == {}
    assert store.count("history") == 4


def test_only_the_newest_runs_are_read_when_compare_asks_for_them(tmp_path: Path) -> None:
    for day in range(4):
        new = artifact(tmp_path, day=day, name=f"new{day}")
        assert admit(tmp_path, new, name=f"run-{3 - day}").exit_code == 0
    store = open_store(history=tmp_path / "history/runs", newest=2)
    assert sorted(store.compact) == ["run-0", "run-1"]
    assert store.rows("SELECT run, rank FROM runs ORDER BY rank") == [
        {"run": "run-0", "rank": 1},
        {"run": "run-1", "rank": 2},
    ]


def test_a_missing_point_of_an_admitted_run_is_not_in_its_compact_file(tmp_path: Path) -> None:
    new = artifact(tmp_path)
    (new / "run" / "ds-fp8-tp8-1024x1024" / "ds-fp8-tp8-1024-1024-4.json").unlink()
    run = Run(day=3)
    failed = point_record(run, Point(concurrency=4), Shape(status="failed"))
    write_run(tmp_path / "new", run, [failed], name="run")
    assert admit(tmp_path, new).exit_code == 0
    store = open_store(history=tmp_path / "history/runs")
    assert store.rows(
        "SELECT concurrency, status, valid FROM records WHERE kind = 'point' ORDER BY 1"
    ) == [
        {"concurrency": 4, "status": "failed", "valid": False},
        {"concurrency": 16, "status": "ok", "valid": True},
        {"concurrency": 64, "status": "ok", "valid": True},
    ]


def test_the_confirmation_documents_are_kept_when_they_are_json(tmp_path: Path) -> None:
    new = artifact(tmp_path)
    docs = tmp_path / "confirmation"
    (docs / "job-1" / "step-0").mkdir(parents=True)
    (docs / "job-1" / "step-0" / "a-0.json").write_text('{"schema": "sglang-ci/confirmation/1"}')
    (docs / "outcomes.json").write_text("{not json")
    result = invoke(
        tmp_path,
        "admit",
        str(new / "run"),
        "--history",
        str(tmp_path / "history"),
        "--name",
        "r",
        "--confirmation",
        str(docs),
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "history/r/manifest.json").read_text())
    assert manifest["confirmation"] == ["confirmation/job-1/step-0/a-0.json"]
    assert "confirmation/outcomes.json" in manifest["left_out"]
    assert (tmp_path / "history/r/confirmation/job-1/step-0/a-0.json").is_file()
    assert not (tmp_path / "history/r/confirmation/outcomes.json").exists()
