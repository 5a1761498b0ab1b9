"""The rendered workflows run night after night as GitHub runs them (tests/pipeline/github.py),
their GPU jobs on the stand-ins, images on the local registry, the history on a git remote
and the tracking issues on the stand-in gh: what the on-call engineer sees each night."""

from __future__ import annotations

import json
import math
import re
import statistics
from collections import defaultdict

import pytest

from generator.confirm import outcomes
from generator.core import ab_noise
from tests.pipeline.world import LABEL, World, world

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.pipeline.github import WorkflowRun

CRON = "0 14 * * *"
QWEN = "Qwen/Qwen3.5-397B-A17B-FP8"
AA_NIGHT = 3  # before it, the A/A of the Qwen server's job measures the A/B's noise
STEP_NIGHT = 6
RECOVERY_NIGHT = 9
RETURN_NIGHT = 10
NIGHTS = 10
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


def measure_noise(w: World, config: str) -> ab_noise.Noise:
    """The A/A of `config`'s job, dispatched: its measured noise pooled into the history."""
    aa = w.github.run(
        "ab-noise.yml", "workflow_dispatch", inputs={"suite": "SGLang-OOB", "configs": config}
    )
    jobs = results(aa)
    assert aa.conclusion == "success", aa.describe()
    assert jobs[f"{config} / Check the caller and the confirmation job"] == "success"
    assert jobs[f"{config} / confirm {config}"] == "success"
    confirm = aa.job(f"{config} / confirm {config}")
    # Both sides on the nightly's image; an A/A restarts its servers, whatever fits.
    assert "restart, 12 turns, 4 server launches" in confirm.log, confirm.log
    data = json.loads(w.history_file(f"ab-noise/{LABEL}.json"))
    [one] = data["measurements"]
    # Two points over three repeats: 3 degrees of freedom within repeats, 2 steps between.
    assert (one["job_id"], one["within_df"], one["steps_n"]) == (config, 3, 2)
    noise = data["noise"]
    assert noise["source"] == f"A/A of {LABEL}, 1 run(s)"
    # The stand-in's launches differ by 1% (NOISE_CV) and measure every point alike.
    assert 0 < noise["launch"] < 0.06
    assert noise["point"] < 1e-6
    summary = aa.job("Pool the measured noise into the history").summary
    assert f"ab-noise/{LABEL}.json: launch {noise['launch']:.4f}" in summary
    return ab_noise.Noise(**noise)


def judged_with_aa(w: World, run: WorkflowRun, config: str) -> None:
    """The night's A/B of `config` carried the pooled A/A noise and was judged with it: a
    threshold other than the default's."""
    measured = ab_noise.Noise(**json.loads(w.history_file(f"ab-noise/{LABEL}.json"))["noise"])
    folder = w.github.artifacts / str(run.run_id) / "verdicts-benchmark-attempt-1"
    [entry] = json.loads((folder / "matrix.json").read_text())["include"]
    assert entry["config"] == config
    assert entry["confirmation"]["noise"] == measured.as_dict()
    [outcome] = json.loads((folder / "outcomes.json").read_text())
    # The mean over the points (each point alone is judged after it).
    judgement = outcome["steps"][0]["judgements"][0]
    assert judgement["point"] is None
    value: dict[tuple[str, str, int], float] = {}
    for d in outcomes.documents(folder):
        assert d["record"] is not None
        throughput = d["record"]["metrics"]["output_throughput_per_gpu"]
        assert throughput is not None
        value[(d["side"], d["point"], d["repeat"])] = throughput
    means = defaultdict(list)
    for (side, point, repeat), a in value.items():
        if side == "A":
            means[repeat].append(math.log(value[("B", point, repeat)] / a))
    per_repeat = [statistics.fmean(v) for v in means.values()]
    n, k = len(entry["points"]), len(per_repeat)
    spread = statistics.stdev(per_repeat)
    how = outcome["mode"]  # both servers fit on the runner at once: parallel
    assert how == "parallel"
    assert judgement["se"] == pytest.approx(measured.se(how, n, k, spread), rel=1e-9)
    assert judgement["se"] != pytest.approx(ab_noise.DEFAULT_NOISE.se(how, n, k, spread))


def test_a_step_is_confirmed_tracked_closed_on_recovery_reopened_when_it_returns(
    github_world: World,
) -> None:
    w = github_world
    names: list[str] = []
    qwen, deepseek = BENCHMARK_JOBS[1], BENCHMARK_JOBS[0]
    digests = [w.images.digests["sglang-latest"]]
    for night in range(1, NIGHTS + 1):
        if night in (STEP_NIGHT, RETURN_NIGHT):
            # A new build of the nightly tag, 10% slower for the Qwen server only.
            digests.append(w.images.push("sglang-latest", slower={QWEN: STEP_PERCENT}))
        elif night == RECOVERY_NIGHT:
            w.images.push("sglang-latest")  # the fix: as fast as before the step
        if night == AA_NIGHT:
            measure_noise(w, qwen)
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
        issues = w.github.issues()
        if night < STEP_NIGHT:
            assert run.conclusion == "success", run.describe()
            assert jobs["confirm"] == "skipped"
            assert issues == []
            continue
        [issue] = issues
        comments = [c["body"] for c in issue["comments"]]
        events = run.job("Events, A/B outcomes and tracking issues")
        if night == STEP_NIGHT:
            # Suspected by the summary, confirmed the same night by the A/B, whose caller
            # check (who called, what it was handed) passes.
            assert jobs[f"{qwen} / Check the caller and the confirmation job"] == "success"
            assert jobs[f"{qwen} / confirm {qwen}"] == "success", run.describe()
            assert run.conclusion == "failure"
            assert events.result == "failure"
            final = w.artifact_json(run, "verdicts-benchmark-attempt-1", "verdicts.json")
            # The other server's launches wobble by 1%: not suspected, no A/B.
            assert f"{deepseek} / confirm {deepseek}" not in jobs
            assert {e["config"]: e["state"] for e in final["events"]} == {qwen: "confirmed"}
            # The A/B was judged with the noise the A/A measured on this label.
            judged_with_aa(w, run, qwen)
            [event] = [e for e in final["events"] if e["config"] == qwen]
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
            assert (issue["state"], comments) == ("OPEN", [])
            assert issue["title"].startswith(f"Performance regression: {qwen} -")
            assert issue["title"].endswith(f"output_throughput_per_gpu since {names[-1]}")
            assert f"first bad run: `{names[-1]}`; last good run: `{names[-2]}`" in issue["body"]
            # The summary job says an A/B comes; the events job's summary starts with the
            # night's outcome in its colour, then the event in one line.
            summary = run.job("Run summary and verdicts").summary
            assert "A/B confirmation jobs" in summary
            assert summary.startswith(
                f"## pending the A/B: 1 suspected · Benchmark #{STEP_NIGHT}\n\n"
                f"- **suspected** {qwen} "
            ), summary
            lines = events.summary.splitlines()
            assert lines[0] == (
                f"## red: 1 new regression ({qwen} {change:+.1%}) · Benchmark #{STEP_NIGHT}"
            )
            line, *links = lines[2].split(" · ")
            good, bad = (d.removeprefix("sha256:")[:12] for d in digests)
            assert line.startswith(f"- **new** {qwen} tok/s/GPU {change:+.1%} [")
            assert f"at 1024x1024 c4..c16 since this run: digest {good} -> {bad}; A/B " in line
            assert re.search(r"; A/B 0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] confirmed$", line), line
            assert len(line) < 200, line
            assert links[0] == "[issue #1](https://github.com/example/sglang-ci/issues/1)"
            assert links[-1].startswith(f"`sglang-ci explain {qwen} --image ")
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
        elif night < RECOVERY_NIGHT:
            # Still low: the open issue gets one comment a night, with that night's name
            # and numbers.
            assert run.conclusion == "success", run.describe()
            assert (issue["state"], len(comments)) == ("OPEN", night - STEP_NIGHT)
            assert comments[-1].startswith(f"Still open in run [{names[-1]}](")
            assert "This run's output_throughput_per_gpu: 1024x1024 c4 " in comments[-1]
            assert jobs["confirm"] == "skipped"
        elif night == RECOVERY_NIGHT:
            # The fixed image: every point of the event back, its issue closed that night.
            assert run.conclusion == "success", run.describe()
            assert (issue["state"], len(comments)) == ("CLOSED", 3), comments
            assert comments[-1].startswith(f"Recovered: run [{names[-1]}]("), comments[-1]
            assert events.summary.startswith(f"## green: 1 recovered · Benchmark #{night}\n")
        else:
            # The slow image again: the same event, its issue reopened with this night's
            # numbers; no new regression, so the night stays green.
            assert run.conclusion == "success", run.describe()
            assert (issue["state"], len(comments)) == ("OPEN", 4), comments
            assert comments[-1].startswith(f"Back in run [{names[-1]}]("), comments[-1]
            assert "This run's output_throughput_per_gpu: 1024x1024 c4 " in comments[-1]
            assert events.summary.startswith(f"## green: 1 still open · Benchmark #{night}\n")
    # No page and no issue names a run `run`; the dashboard's event names its first bad run.
    site = "\n".join(p.read_text() for p in w.github.pages.rglob("*.html"))
    texts = [
        site,
        *(i["title"] + i["body"] + "".join(c["body"] for c in i["comments"])
          for i in w.github.issues()),
    ]  # fmt: skip
    named_run = r"run `run`|since run\b|<td>run</td>|: run(?![ \[])"
    assert not [t for t in texts if re.search(named_run, t)]
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
