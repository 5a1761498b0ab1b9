"""A regression from the nightly to its tracking issue, every step the command the workflow
runs: `results compare` on a history where the fixture's Qwen TP4 server drops 12% at run
R, `confirm matrix`, the A/B job on the stand-in runner (server 12% slower on R's image
digest: three parallel repeats give an interval wide enough that 8% could not be told from
the 5% minimum change, generator/core/ab_verdict.py), `confirm outcomes`, `results compare
--confirmation`, `confirm issues` against the stand-in gh, `results admit`; then the next
run, still low, and the recovery. And a suspected event from noise alone, which the A/B
clears."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from tests import confirm_gen as cg
from tests.helpers import ROOT
from tests.launchers.confirm_support import run_confirm
from tests.launchers.support import Harness

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from click.testing import Result

    from tests.conftest import Invoke

POLICY = "confirm: {enabled: true, issues: true, repeats: 3}\n"
GOOD = 8  # history runs before R: a full baseline (7) and one more


class Night:
    """One night of the benchmark workflow's summary and events jobs, run by hand."""

    def __init__(self, cli: Invoke, tmp_path: Path, job: dict[str, Any]) -> None:
        self.cli, self.tmp, self.job = cli, tmp_path, job
        self.history = tmp_path / "history"
        self.policy = tmp_path / "policy.yaml"
        self.policy.write_text(POLICY)
        self.matrix = tmp_path / "jobs.json"
        self.matrix.write_text(json.dumps({"include": [job]}))

    def compare(self, run: Path, *args: str) -> tuple[Result, dict[str, Any]]:
        out = self.tmp / f"{run.name}-{len(args)}.json"
        result = self.cli(
            "results", "compare", "--history", str(self.history), "--current", str(run),
            "--expected", str(self.matrix), "--policy", str(self.policy),
            "--json", "--out", str(out), *args,
        )  # fmt: skip
        assert result.exit_code in (0, 1), result.stderr
        return result, json.loads(out.read_text())

    def issues(
        self, verdicts: dict[str, Any], outcomes: Path | None = None, out: Path | None = None
    ) -> list[str]:
        """`confirm issues` on these verdicts; the gh commands it ran that change an issue
        (reading issues and creating the label are left out)."""
        (self.tmp / "final.json").write_text(json.dumps(verdicts))
        record = self.tmp / "gh.jsonl"
        before = record.read_text().splitlines() if record.exists() else []
        args = ["confirm", "issues", "--verdicts", str(self.tmp / "final.json"),
                "--repo", "o/r", "--policy", str(self.policy)]  # fmt: skip
        if outcomes is not None:
            args += ["--outcomes", str(outcomes)]
        if out is not None:
            args += ["--out", str(out)]
        result = self.cli(*args)
        assert result.exit_code == 0, result.stderr
        lines = record.read_text().splitlines() if record.exists() else []
        ran = [json.loads(x)["command"] for x in lines[len(before) :]]
        return [c for c in ran if c.startswith("issue ") and c not in ("issue list", "issue view")]

    def admit(self, run: Path, verdicts: dict[str, Any], *confirmation: str) -> None:
        (self.tmp / "admitted.json").write_text(json.dumps(verdicts))
        result = self.cli(
            "results", "admit", str(run), "--history", str(self.history), "--name", run.name,
            "--verdicts", str(self.tmp / "admitted.json"), *confirmation,
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr

    def later(self, run: Path, verdicts: dict[str, Any]) -> list[str]:
        """A night without A/B: `confirm issues` as the events job runs it (what it did
        kept in the night's confirmation folder), the run admitted with that folder."""
        folder = self.tmp / f"confirmation-{run.name}"
        folder.mkdir()
        (folder / "verdicts.json").write_text(json.dumps(verdicts))
        commands = self.issues(verdicts, out=folder / "issues.json")
        self.admit(run, verdicts, "--confirmation", str(folder))
        return commands

    def ab(self, verdicts: Path, runner: Harness, slower: float) -> list[dict[str, Any]]:
        """The confirmation matrix of these verdicts, its A/B job run with the stand-in
        server `slower` percent slower on the current digest, and `confirm outcomes`."""
        result = self.cli(
            "confirm", "matrix", "--verdicts", str(verdicts), "--matrix", str(self.matrix),
            "--history", str(self.history), "--policy", str(self.policy),
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        entries = json.loads(result.stdout)["include"]
        assert len(entries) == 1  # one job for the one affected server
        [entry] = entries
        conf = entry["confirmation"]
        images = [{**conf["a"], "version": "0.5.23"}, {**conf["b"], "version": "0.5.24"}]
        proc, _ = run_confirm(runner, entry, images, gpus=8, slower={cg.digest("current"): slower})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        self.entry = entry
        (self.tmp / "confirm.json").write_text(json.dumps({"include": [entry]}))
        result = self.cli(
            "confirm", "outcomes", "--matrix", str(self.tmp / "confirm.json"), "--results",
            str(runner.results), "--confirmation", str(self.tmp / "ab.json"), "--json",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        (self.tmp / "outcomes.json").write_text(result.stdout)
        outcomes: list[dict[str, Any]] = json.loads(result.stdout)
        return outcomes


@pytest.fixture
def setup(cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Night:
    monkeypatch.setenv("PATH", f"{ROOT / 'tests/standin/bin'}:/usr/bin:/bin")
    monkeypatch.setenv("GH_STANDIN_STATE", str(tmp_path / "repo.json"))
    monkeypatch.setenv("GH_STANDIN_RECORD", str(tmp_path / "gh.jsonl"))
    monkeypatch.setenv("GH_TOKEN", "t")
    night = Night(cli, tmp_path, cg.qwen_job((4, 8)))
    for day in range(GOOD):
        cg.write(night.history, night.job, day, "good")
    return night


def test_a_twelve_percent_drop_is_suspected_confirmed_by_the_ab_tracked_and_closed(
    setup: Night, tmp_path: Path
) -> None:
    night = setup
    # Run R: 12% lower on a new image with a new SGLang.
    r = cg.write(tmp_path / "runs", night.job, GOOD, "current", throughput=0.88, version="0.5.24")
    result, first = night.compare(r)
    assert (result.exit_code, first["outcome"], first["confirmed"]) == (0, "pass", [])
    [event] = first["events"]
    assert (event["state"], event["first_bad_run"]) == ("suspected", r.name)
    assert event["differences"]["image_digest"] == [cg.digest("good"), cg.digest("current")]
    assert event["differences"]["sglang_version"] == ["0.5.23", "0.5.24"]
    assert {p["verdict"] for p in first["points"]} == {"suspected"}

    runner = Harness(tmp_path / "runner")
    [outcome] = night.ab(tmp_path / f"{r.name}-0.json", runner, slower=12.0)
    assert (outcome["event"], outcome["result"]) == (event["id"], "confirmed")
    assert outcome["first_bad"]["image_digest"] == cg.digest("current")

    result, final = night.compare(r, "--confirmation", str(tmp_path / "ab.json"))
    assert (result.exit_code, final["outcome"], final["confirmed"]) == (1, "fail", [event["id"]])
    [confirmed] = final["events"]
    assert (confirmed["id"], confirmed["state"], confirmed["confirmed_by"]) == (
        event["id"], "confirmed", "ab",
    )  # fmt: skip
    assert (confirmed["first_bad_run"], confirmed["last_good_run"]) == (
        r.name, event["last_good_run"],
    )  # fmt: skip
    # The events job's folder: the A/B job's artifact, the matrix, the outcomes, the final
    # verdicts and what `confirm issues` did; the history job admits it with the run.
    folder = tmp_path / "run-confirmation"
    shutil.copytree(runner.results / "confirmation", folder / f"confirmation-{night.entry['id']}")
    for name, source in (("matrix", "confirm"), ("outcomes", "outcomes"), ("results", "ab")):
        shutil.copy(tmp_path / f"{source}.json", folder / f"{name}.json")
    (folder / "verdicts.json").write_text(json.dumps(final))
    issues = folder / "issues.json"
    assert night.issues(final, tmp_path / "outcomes.json", issues) == ["issue create"]
    assert night.issues(final, tmp_path / "outcomes.json", issues) == []  # a re-attempt
    [issue] = json.loads((tmp_path / "repo.json").read_text())["issues"]
    assert "first bad image: `sglang-latest`" in issue["body"]
    url = "https://github.com/o/r/issues/1"
    assert json.loads(issues.read_text())["issues"] == [
        {"event": event["id"], "number": 1, "url": url, "open": True, "action": None}
    ]
    night.admit(r, final, "--confirmation", str(folder))
    manifest = json.loads((night.history / r.name / "manifest.json").read_text())
    assert "confirmation/issues.json" in manifest["confirmation"]

    # The next run, still low: the same event, reported without failing; one comment.
    r2 = cg.write(tmp_path / "runs", night.job, GOOD + 1, "current", throughput=0.88)
    result, second = night.compare(r2)
    assert (result.exit_code, second["outcome"], second["confirmed"]) == (0, "pass", [])
    [still] = second["events"]
    assert (still["id"], still["state"], still["new_confirmation"]) == (
        event["id"], "confirmed", False,
    )  # fmt: skip
    assert night.later(r2, second) == ["issue comment"]

    # Recovery: two runs back at the level. The first still reports the open event, but
    # measures each of its points back: the issue is closed that night, once; the second
    # no longer reports the event.
    commands: list[str] = []
    for day in (GOOD + 2, GOOD + 3):
        back = cg.write(tmp_path / "runs", night.job, day, "fixed")
        result, verdicts = night.compare(back)
        assert (result.exit_code, len(verdicts["events"])) == (0, day == GOOD + 2), verdicts
        commands += night.later(back, verdicts)
    assert commands == ["issue close"]
    [issue] = json.loads((tmp_path / "repo.json").read_text())["issues"]
    assert issue["state"] == "CLOSED"  # as gh reports it
    assert '"id": "' + event["id"] + '"' in issue["body"]  # the marker that finds it again

    # The dashboard's regressions page: the event, its A/B judged again from the runner's
    # documents, and the issue.
    site = tmp_path / "site"
    result = night.cli("results", "report", "--history", str(night.history), "--out", str(site))
    assert result.exit_code == 0, result.stderr
    page = (site / "regressions.html").read_text()
    assert f'<section class="event regression" id="{event["id"]}">' in page
    assert f'<a href="{url}">#1</a> (closed; closed in ' in page
    assert 'Result: <b class="confirmed">confirmed</b>, 3 repeats of each image' in page


def test_a_suspected_event_from_noise_is_cleared_by_the_ab_and_opens_no_issue(
    setup: Night, tmp_path: Path
) -> None:
    night = setup
    # One low night on an image that is no slower: the A/B, run at once, finds no change.
    r = cg.write(tmp_path / "runs", night.job, GOOD, "current", throughput=0.92)
    _, first = night.compare(r)
    [event] = first["events"]
    assert event["state"] == "suspected"
    runner = Harness(tmp_path / "runner")
    [outcome] = night.ab(tmp_path / f"{r.name}-0.json", runner, slower=0.0)
    assert (outcome["event"], outcome["result"]) == (event["id"], "cleared")
    result, final = night.compare(r, "--confirmation", str(tmp_path / "ab.json"))
    assert (result.exit_code, final["outcome"], final["confirmed"]) == (0, "pass", [])
    [cleared] = final["events"]
    assert (cleared["id"], cleared["state"]) == (event["id"], "cleared")
    assert {p["verdict"] for p in final["points"]} == {"ok"}
    assert night.issues(final, tmp_path / "outcomes.json") == []
    assert (
        not (tmp_path / "repo.json").exists()
        or json.loads((tmp_path / "repo.json").read_text()).get("issues", []) == []
    )


def test_confirm_outcomes_replaces_only_a_confirmation_file_it_wrote(
    cli: Invoke, tmp_path: Path
) -> None:
    (tmp_path / "none.json").write_text('{"include": []}\n')
    out = tmp_path / "results.json"
    args = ["confirm", "outcomes", "--matrix", str(tmp_path / "none.json"),
            "--confirmation", str(out)]  # fmt: skip
    assert cli(*args).exit_code == 0
    assert cli(*args).exit_code == 0  # its own file, proven by its marker
    assert out.read_text() == "[]\n"
    shaped = ("shaped.json", '[{"event": "ev-0d1c2b3a4f5e", "result": "confirmed"}]\n')
    for name, text in (("notes.json", '{"mine": true}\n'), ("notes.md", "[]\n"), shaped):
        mine = tmp_path / name
        mine.write_text(text)
        result = cli(*args[:-1], str(mine))
        assert result.exit_code == 2
        assert result.stderr.startswith(f"error: {mine}: ")
        assert mine.read_text() == text
