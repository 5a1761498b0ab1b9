"""The rendered workflows run night after night as GitHub runs them (tests/pipeline/github.py),
their GPU jobs on the stand-ins, images on the local registry, the history on a git remote
and the tracking issues on the stand-in gh: what the on-call engineer sees each night."""

from __future__ import annotations

import json
import re

import pytest

from tests.pipeline.world import World, world

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.pipeline.github import WorkflowRun

CRON = "0 14 * * *"
QWEN = "Qwen/Qwen3.5-397B-A17B-FP8"
STEP_NIGHT = 5
NIGHTS = 8
STEP_PERCENT = 10.0
BENCHMARK_JOBS = ("deepseek-r1-fp8-tp8", "qwen3-5-397b-a17b-fp8-tp4")


@pytest.fixture
def github_world(tmp_path: Path) -> Iterator[World]:
    with world(tmp_path) as w:
        yield w


def nightly(w: World) -> WorkflowRun:
    return w.github.run("benchmark.yml", "schedule", schedule=CRON)


def results(run: WorkflowRun) -> dict[str, str]:
    return {job.name: job.result for job in run.jobs}


def admitted_name(w: World, run: WorkflowRun) -> str:
    """The run's directory in the history (named by its select job)."""
    [name] = [n for n in w.history_runs() if n.endswith(f"-benchmark-{run.run_id}-1")]
    return name


def test_a_step_on_night_five_is_confirmed_tracked_and_published_night_by_night(
    github_world: World,
) -> None:
    w = github_world
    names: list[str] = []
    for night in range(1, NIGHTS + 1):
        if night == STEP_NIGHT:
            # A new build of the nightly tag, 10% slower for the Qwen server only.
            w.images.push("sglang-latest", slower={QWEN: STEP_PERCENT})
        run = nightly(w)
        jobs = results(run)
        names.append(admitted_name(w, run))
        assert w.history_runs() == names, run.describe()
        # The dashboard is published every night, the red one above all.
        assert jobs["Publish the dashboard"] == "success", run.describe()
        assert names[-1] in (w.github.pages / "index.html").read_text()
        for job in BENCHMARK_JOBS:
            assert jobs[f"{job} / Check the caller and the job"] == "success"
            assert jobs[f"{job} / {job}"] == "success"
        if night < STEP_NIGHT:
            assert run.conclusion == "success", run.describe()
            assert jobs["confirm"] == "skipped"
            assert w.github.issues() == []
            continue
        summary = run.job("Run summary and verdicts").summary
        if night == STEP_NIGHT:
            # Suspected by the summary, confirmed the same night by the A/B, whose caller
            # check (who called, what it was handed) passes.
            qwen = BENCHMARK_JOBS[1]
            assert jobs[f"{qwen} / Check the caller and the confirmation job"] == "success"
            assert jobs[f"{qwen} / confirm {qwen}"] == "success", run.describe()
            assert not any("deepseek" in name and "confirm" in name for name in jobs)
            assert run.conclusion == "failure"
            events = run.job("Events, A/B outcomes and tracking issues")
            assert events.result == "failure"
            final = w.artifact_json(run, "verdicts-benchmark-attempt-1", "verdicts.json")
            [event] = final["events"]
            assert (event["state"], event["first_bad_run"], event["last_good_run"]) == (
                "confirmed", names[-1], names[-2],
            )  # fmt: skip
            change = event["changes"]["output_throughput_per_gpu"]["change"]
            assert -0.14 < change < -0.06
            assert next(iter(event["changes"])) == "output_throughput_per_gpu"
            assert [a for a in events.annotations if a.startswith("error")] == [
                (
                    f"error: confirmed regression of {qwen}: output_throughput_per_gpu "
                    f"{change:+.1%} since {names[-1]} ({event['id']})"
                )
            ]
            [issue] = w.github.issues()
            assert issue["state"] == "OPEN"
            assert issue["title"].startswith(f"Performance regression: {qwen} -")
            assert issue["title"].endswith(f"output_throughput_per_gpu since {names[-1]}")
            assert f"first bad run: `{names[-1]}`; last good run: `{names[-2]}`" in issue["body"]
            assert issue["comments"] == []
            assert "A/B confirmation jobs" in summary
            assert "## Benchmark #5: fail" in events.summary
            # "Re-run failed jobs": the events job and what needs it run again; the night
            # is in the history once, and the issue says nothing twice.
            again = w.github.rerun_failed(run)
            assert [j.name for j in again.jobs] == [
                "Events, A/B outcomes and tracking issues",
                "Append the run to the history",
                "Publish the dashboard",
            ]
            assert w.history_runs() == names
            history = again.job("Append the run to the history")
            assert history.result == "success", again.describe()
            assert f"already admitted: history/runs/{names[-1]} holds these 6 records" in (
                history.log
            )
            assert w.github.issues()[0]["comments"] == []
        else:
            # Still low: the open issue gets one comment a night, with that night's name.
            assert run.conclusion == "success", run.describe()
            [issue] = w.github.issues()
            assert issue["state"] == "OPEN"
            assert len(issue["comments"]) == night - STEP_NIGHT
            assert f"<!-- sglang-ci-run {names[-1]} -->" in issue["comments"][-1]
            assert jobs["confirm"] == "skipped"
    # No page and no issue names a run `run`; the dashboard's event names its first bad run.
    site = "\n".join(p.read_text() for p in w.github.pages.rglob("*.html"))
    texts = [site, *(i["title"] + i["body"] + "".join(i["comments"]) for i in w.github.issues())]
    assert not [t for t in texts if re.search(r"run `run`|since run\b|<td>run</td>|: run\b", t)]
    regressions = (w.github.pages / "regressions.html").read_text()
    assert re.search(rf"First bad run:\s*(<[^>]*>\s*)*Benchmark #{STEP_NIGHT}\b", regressions)
    manifest = json.loads(w.history_file(f"runs/{names[STEP_NIGHT - 1]}/manifest.json"))
    assert manifest["verdicts"]["current"] == names[STEP_NIGHT - 1]


def test_accuracy_nights_pass_and_fail_and_dispatches_say_what_went_wrong(
    github_world: World,
) -> None:
    w = github_world
    case = "qwen3-5-397b-a17b-fp8-tp4"
    # A night whose gate passes: history and dashboard.
    run = w.github.run("accuracy-nightly.yml", "schedule", schedule="0 18 * * *")
    jobs = results(run)
    assert run.conclusion == "success", run.describe()
    assert (jobs[f"{case} / Check the caller and the case"], jobs[f"{case} / {case}"]) == (
        "success", "success",
    )  # fmt: skip
    assert jobs["Publish the dashboard"] == "success"
    [first] = w.history_runs()
    assert first.endswith(f"-accuracy-{run.run_id}-1")
    # A new image whose evaluator scores under the gate: red, and still in the history.
    w.images.push("sglang-latest", env={"SGLANG_STANDIN_LMEVAL_SCORE": "0.5"})
    run = w.github.run("accuracy-nightly.yml", "schedule", schedule="0 18 * * *")
    jobs = results(run)
    assert run.conclusion == "failure", run.describe()
    summary = run.job("Run summary and verdicts")
    assert summary.result == "failure"
    assert [a for a in summary.annotations if a.startswith("error")] == [
        f"error: failed gate: case {case}: exact_match,flexible-extract 0.5 below the threshold 0.9"
    ]
    assert (jobs["Append the run to the history"], jobs["Publish the dashboard"]) == (
        "success", "success",
    )  # fmt: skip
    assert len(w.history_runs()) == 2

    # A dispatch whose server exits before it is ready: its reason reaches the summary.
    w.images.push("broken", env={"SGLANG_STANDIN_FAIL": "exit-at-start"})
    run = w.github.run(
        "benchmark.yml",
        "workflow_dispatch",
        inputs={"suite": "SGLang-OOB", "configs": case, "image": f"{w.image}:broken"},
    )
    text = run.job("Run summary and verdicts").summary
    assert run.conclusion == "failure", run.describe()
    assert "simulated crash at start (SGLANG_STANDIN_FAIL=exit-at-start)" in text, text
    assert "Files that are not valid records: 0" in text
    assert "missing job" not in text
    assert len(w.history_runs()) == 3  # dispatched from the default branch: admitted

    # A bad input stops in select with one line, before any GPU job.
    run = w.github.run(
        "benchmark.yml", "workflow_dispatch", inputs={"suite": "SGLang-OOB", "configs": "qwen"}
    )
    select = run.job("Select jobs and pin images")
    assert select.result == "failure"
    assert [j.name for j in run.jobs if j.result != "skipped"] == ["Select jobs and pin images"]
    assert len([line for line in select.steps[-1].log.splitlines() if "error" in line]) == 1
    assert len(w.history_runs()) == 3
