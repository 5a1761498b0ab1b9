"""From compare's events to the tracking issue: `sglang-ci confirm matrix`, the A/B job on
the stand-in runner (docker, server 8% slower on the current digest), `confirm outcomes`
and `confirm issues` against the stand-in gh. The events are given as `results compare
--json` documents them (docs/results.md, schema sglang-ci/verdicts/2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests import confirm_gen as cg
from tests.conftest import Invoke
from tests.helpers import ROOT
from tests.launchers.confirm_support import run_confirm
from tests.launchers.support import Harness

EVENT = "ev-0d1c2b3a4f5e"


def verdicts(current: str, last_good: str, job: dict[str, Any], state: str) -> dict[str, Any]:
    server = {
        "fingerprint": job["server_fingerprint"],
        "runner_label": job["runner"],
        "image_family": cg.FAMILY,
    }
    verdict = "regression" if state == "confirmed" else state
    points = [
        {"config": job["config"], **server, "isl": p["isl"], "osl": p["osl"],
         "concurrency": p["concurrency"], "verdict": verdict,
         "metrics": {"output_throughput_per_gpu": {"change": -0.08 - 0.01 * i}}}
        for i, p in enumerate(job["points"])
    ]  # fmt: skip
    return {
        "schema": "sglang-ci/verdicts/2",
        "current": current,
        "events": [
            {
                "id": EVENT,
                "state": state,
                "confirmed_by": "re-run" if state == "confirmed" else None,
                "config": job["config"],
                "server": server,
                "first_bad_run": current,
                "last_good_run": last_good,
                "runs": 1,
                "points": [
                    {"isl": p["isl"], "osl": p["osl"], "concurrency": p["concurrency"]}
                    for p in job["points"]
                ],
                "metrics": ["output_throughput_per_gpu"],
                "changes": {
                    "output_throughput_per_gpu": {"change": -0.08, "low": -0.09, "high": -0.07}
                },
                "differences": {"image_digest": [cg.digest("good"), cg.digest("current")]},
            }
        ],
        "points": points,
    }


@pytest.fixture
def runner(tmp_path: Path) -> Harness:
    return Harness(tmp_path / "runner")


def test_a_suspected_event_gets_one_ab_job_that_confirms_and_opens_one_issue(
    cli: Invoke, tmp_path: Path, runner: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = cg.qwen_job((4,))
    history = tmp_path / "history"
    runs = [cg.write(history, job, day, "good") for day in range(4)]
    current = cg.write(tmp_path / "current", job, 4, "current", throughput=0.92)
    (tmp_path / "v.json").write_text(
        json.dumps(verdicts(current.name, runs[-1].name, job, "suspected"))
    )
    (tmp_path / "jobs.json").write_text(json.dumps({"include": [job]}))
    md = tmp_path / "summary.md"
    (tmp_path / "policy.yaml").write_text("confirm: {enabled: true, issues: true}\n")
    result = cli(
        "confirm", "matrix", "--verdicts", str(tmp_path / "v.json"), "--matrix",
        str(tmp_path / "jobs.json"), "--history", str(history), "--markdown", str(md),
        "--policy", str(tmp_path / "policy.yaml"),
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    [entry] = json.loads(result.stdout)["include"]
    conf = entry["confirmation"]
    assert conf["event"] == EVENT
    assert (conf["a"]["image_digest"], conf["a"]["run"]) == (cg.digest("good"), runs[-1].name)
    assert (conf["b"]["image_digest"], conf["b"]["run"]) == (cg.digest("current"), current.name)
    assert conf["candidates"] == []
    assert [p["id"] for p in entry["points"]] == [p["id"] for p in job["points"]]
    assert "### A/B confirmation jobs" in md.read_text()

    slower = {cg.digest("current"): 8.0}
    images = [{**conf["a"], "version": "0.5.23"}, {**conf["b"], "version": "0.5.24"}]
    proc, _ = run_confirm(runner, entry, images, gpus=8, slower=slower)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    (tmp_path / "confirm.json").write_text(json.dumps({"include": [entry]}))
    result = cli(
        "confirm", "outcomes", "--matrix", str(tmp_path / "confirm.json"), "--results",
        str(runner.results), "--confirmation", str(tmp_path / "c.json"), "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    [outcome] = json.loads(result.stdout)
    assert outcome["result"] == "confirmed"
    assert outcome["first_bad"]["image_digest"] == cg.digest("current")
    assert outcome["versions"][cg.digest("current")]["sglang_version"] == "0.5.24"
    assert json.loads((tmp_path / "c.json").read_text()) == [
        {"event": EVENT, "result": "confirmed"}
    ]
    (tmp_path / "outcomes.json").write_text(result.stdout)

    final = verdicts(current.name, runs[-1].name, job, "confirmed")
    (tmp_path / "final.json").write_text(json.dumps(final))
    monkeypatch.setenv("PATH", f"{ROOT / 'tests/standin/bin'}:/usr/bin:/bin")
    monkeypatch.setenv("GH_STANDIN_STATE", str(tmp_path / "repo.json"))
    monkeypatch.setenv("GH_STANDIN_RECORD", str(tmp_path / "gh.jsonl"))
    monkeypatch.setenv("GH_TOKEN", "t")
    # The events job's confirmation folder: the A/B jobs' artifacts, the matrix, the
    # outcomes, compare's files and what `confirm issues` did.
    folder = tmp_path / "run-confirmation"
    shutil.copytree(runner.results / "confirmation", folder / f"confirmation-{entry['id']}")
    shutil.copy(tmp_path / "confirm.json", folder / "matrix.json")
    shutil.copy(tmp_path / "outcomes.json", folder / "outcomes.json")
    shutil.copy(tmp_path / "c.json", folder / "results.json")
    shutil.copy(tmp_path / "final.json", folder / "verdicts.json")
    issues_file = folder / "issues.json"
    args = ["confirm", "issues", "--verdicts", str(tmp_path / "final.json"), "--outcomes",
            str(tmp_path / "outcomes.json"), "--repo", "o/r",
            "--out", str(issues_file)]  # fmt: skip
    result = cli(*args)  # the fixture catalog keeps no tracking issue
    assert result.stdout == "tracking issues are off (regression.confirm.issues)\n"
    assert json.loads(issues_file.read_text())["enabled"] is False
    for _ in range(2):  # a re-attempt of the same run opens nothing more
        result = cli(*args, "--policy", str(tmp_path / "policy.yaml"))
        assert result.exit_code == 0, result.stderr
    commands = [json.loads(x)["command"] for x in (tmp_path / "gh.jsonl").read_text().splitlines()]
    assert commands.count("issue create") == 1
    [issue] = json.loads((tmp_path / "repo.json").read_text())["issues"]
    assert "A `sglang-latest` (`" in issue["body"]
    assert "first bad image: `sglang-latest`" in issue["body"]
    url = "https://github.com/o/r/issues/1"
    # the re-attempt found the issue the first attempt opened, and did nothing more
    assert json.loads(issues_file.read_text()) == {
        "schema": "sglang-ci/issues/1", "run": current.name, "repository": "o/r",
        "enabled": True, "error": None,
        "issues": [{"event": EVENT, "number": 1, "url": url, "open": True, "action": None}],
    }  # fmt: skip

    # The history job admits the run with its confirmation folder; the dashboard shows the
    # A/B judged again from the runner's documents and links the issue.
    result = cli("results", "admit", str(current), "--history", str(history), "--name",
                 current.name, "--verdicts", str(tmp_path / "final.json"),
                 "--confirmation", str(folder))  # fmt: skip
    assert result.exit_code == 0, result.stderr
    admitted = history / current.name
    manifest = json.loads((admitted / "manifest.json").read_text())
    assert "confirmation/issues.json" in manifest["confirmation"]
    assert json.loads((admitted / "confirmation/issues.json").read_text()) == json.loads(
        issues_file.read_text()
    )
    site = tmp_path / "site"
    result = cli("results", "report", "--history", str(history), "--out", str(site))
    assert result.exit_code == 0, result.stderr
    page = (site / "regressions.html").read_text()
    assert f'<section class="event regression" id="{EVENT}">' in page
    assert f'<a href="{url}">#1</a> (open; seen in ' in page
    assert 'Result: <b class="confirmed">confirmed</b>, 3 repeats of each image, parallel.' in page
    assert '<tr class="confirmed"><td>1024x1024 c=4</td><td>tok/s/GPU</td><td>0.920</td>' in page


def test_confirm_outcomes_replaces_only_a_confirmation_file_it_wrote(
    cli: Invoke, tmp_path: Path
) -> None:
    (tmp_path / "none.json").write_text('{"include": []}\n')
    out = tmp_path / "results.json"
    args = ["confirm", "outcomes", "--matrix", str(tmp_path / "none.json"),
            "--confirmation", str(out)]  # fmt: skip
    out.write_text('[{"event": "ev-0d1c2b3a4f5e", "result": "confirmed"}]\n')
    assert cli(*args).exit_code == 0
    assert out.read_text() == "[]\n"
    for name, text in (("notes.json", '{"mine": true}\n'), ("notes.md", "[]\n")):
        mine = tmp_path / name
        mine.write_text(text)
        result = cli(*args[:-1], str(mine))
        assert result.exit_code == 2
        assert result.stderr.startswith(f"error: {mine}: ")
        assert mine.read_text() == text
