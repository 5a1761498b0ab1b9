"""Tracking issues (generator/confirm/issues.py) against the stand-in gh, which keeps a
repository in a JSON file and records every call."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from generator.confirm import issues
from generator.confirm.events import Verdicts, parse
from generator.confirm.tracked import Tracked
from generator.launch.logtext import one_line
from tests.helpers import ROOT
from tests.unit.test_markdown_text import PAYLOADS, assert_harmless, inside_code, render_markdown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from click.testing import Result

    from tests.conftest import Invoke

GH = str(ROOT / "tests" / "standin" / "bin" / "gh")
SERVER = {"fingerprint": "sha256:9c1e", "runner_label": "mi355", "image_family": "rocm/atom-dev"}
CONFIG = "deepseek-r1-fp8-tp4"


def event(state: str = "confirmed", **extra: Any) -> dict[str, Any]:
    return {
        "id": "ev-3f2a9c41d07b",
        "state": state,
        "confirmed_by": "re-run",
        "config": CONFIG,
        "server": SERVER,
        "first_bad_run": "run-07",
        "last_good_run": "run-06",
        "runs": 1,
        "points": [{"pair": "1024x1024", "isl": 1024, "osl": 1024, "concurrency": 4}],
        "metrics": ["output_throughput_per_gpu"],
        "changes": {"output_throughput_per_gpu": {"change": -0.08, "low": -0.09, "high": -0.07}},
        "differences": {"image_digest": ["sha256:aa", "sha256:bb"]},
        **extra,
    }


def verdicts(run: str, events: list[dict[str, Any]], measured: bool = True) -> Verdicts:
    points = [{"config": CONFIG, **SERVER, "isl": 1024, "osl": 1024, "concurrency": 4,
               "verdict": "ok", "metrics": {}}] if measured else []  # fmt: skip
    return parse({"schema": "sglang-ci/verdicts/2", "current": run, "events": events,
                  "points": points}, "v.json")  # fmt: skip


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> issues.Gh:
    monkeypatch.setenv("GH_STANDIN_STATE", str(tmp_path / "repo.json"))
    monkeypatch.setenv("GH_STANDIN_RECORD", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("GH_TOKEN", "token")
    monkeypatch.setenv("GH_STANDIN_PYTHON", sys.executable)  # not a version manager's shim
    return issues.Gh("owner/repo", program=GH)


def calls(tmp_path: Path) -> list[str]:
    path = tmp_path / "calls.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line)["command"] for line in lines]


def writes(tmp_path: Path) -> list[str]:
    return [c for c in calls(tmp_path) if c not in ("issue list", "issue view")]


def keep(gh: issues.Gh, v: Verdicts) -> list[str]:
    found = issues.issues(gh, "perf", {e.id for e in v.events})
    run = issues.RunInfo(
        name=v.current, url=f"https://github.com/owner/repo/actions/runs/{v.current}"
    )
    return issues.apply(gh, issues.plan(v, {}, found, run), "perf")


def repo(tmp_path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((tmp_path / "repo.json").read_text())
    return data


def test_one_issue_per_event_commented_while_open_and_closed_on_recovery(
    gh: issues.Gh, tmp_path: Path
) -> None:
    assert keep(gh, verdicts("run-07", [event()])) == [
        "opened https://github.com/owner/repo/issues/1 for event ev-3f2a9c41d07b"
    ]
    assert writes(tmp_path) == ["label create", "issue create"]
    [issue] = repo(tmp_path)["issues"]
    assert issue["labels"] == ["perf"]
    assert issue["title"] == (
        "Performance regression: deepseek-r1-fp8-tp4 -8.0% output_throughput_per_gpu since run-07"
    )
    assert "<!-- sglang-ci-event " in issue["body"]
    assert "| image_digest | `sha256:aa` | `sha256:bb` |" in issue["body"]

    assert keep(gh, verdicts("run-07", [event()])) == []  # a re-attempt of the same run
    assert keep(gh, verdicts("run-08", [event(runs=2)])) == [
        "commented on #1 (event ev-3f2a9c41d07b)"
    ]
    assert keep(gh, verdicts("run-08", [event(runs=2)])) == []
    assert keep(gh, verdicts("run-09", [], measured=False)) == []  # another cron group
    assert keep(gh, verdicts("run-10", [])) == ["closed #1 (event ev-3f2a9c41d07b)"]
    assert writes(tmp_path) == ["label create", "issue create", "issue comment", "issue close"]
    [issue] = repo(tmp_path)["issues"]
    assert issue["state"] == "CLOSED"
    assert issue["comments"][0].startswith("Still open in run [run-08](")
    assert "-8.0% [-9.0%, -7.0%]" in issue["comments"][0]
    assert issue["comments"][1].startswith("Recovered: run [run-10](")


@pytest.mark.parametrize("state", ["suspected", "cleared"])
def test_an_event_not_confirmed_opens_no_issue(gh: issues.Gh, tmp_path: Path, state: str) -> None:
    # cleared: the A/B found no difference (noise alone)
    assert keep(gh, verdicts("run-07", [event(state, confirmed_by=None)])) == []
    assert writes(tmp_path) == []


def test_an_event_back_after_its_issue_closed_reopens_it(gh: issues.Gh, tmp_path: Path) -> None:
    keep(gh, verdicts("run-07", [event()]))
    keep(gh, verdicts("run-08", []))
    assert keep(gh, verdicts("run-09", [event(runs=3)])) == ["reopened #1 (event ev-3f2a9c41d07b)"]
    [issue] = repo(tmp_path)["issues"]
    assert issue["state"] == "OPEN"
    assert writes(tmp_path).count("issue create") == 1


def test_issues_without_the_marker_are_not_touched(gh: issues.Gh, tmp_path: Path) -> None:
    state = {"issues": [{"number": 1, "title": "t", "body": "hand-written", "state": "OPEN",
                         "labels": ["perf"], "comments": []}], "labels": ["perf"]}  # fmt: skip
    (tmp_path / "repo.json").write_text(json.dumps(state))
    assert keep(gh, verdicts("run-07", [])) == []
    assert keep(gh, verdicts("run-08", [event()])) == [
        "opened https://github.com/owner/repo/issues/2 for event ev-3f2a9c41d07b"
    ]


def test_a_failing_gh_is_one_line(gh: issues.Gh, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GH_TOKEN")
    with pytest.raises(issues.IssueError) as caught:
        keep(gh, verdicts("run-07", [event()]))
    assert str(caught.value) == (
        "gh issue list failed (4): To get started with GitHub CLI, please run:  gh auth login"
    )


def kept(gh: issues.Gh, v: Verdicts) -> list[Tracked]:
    """What `confirm issues --out` records for run `v`."""
    listed = issues.issues(gh, "perf", {e.id for e in v.events})
    done: list[Tracked] = []
    issues.apply(gh, issues.plan(v, {}, listed, issues.RunInfo(name=v.current, url=None)),
                 "perf", done)  # fmt: skip
    return issues.tracked(v, listed, done)


def test_each_issue_is_recorded_with_its_number_url_and_the_action_taken(
    gh: issues.Gh,
) -> None:
    url = "https://github.com/owner/repo/issues/1"

    def one(action: str | None, is_open: bool = True) -> list[Tracked]:
        return [Tracked(event="ev-3f2a9c41d07b", number=1, url=url, open=is_open, action=action)]

    assert kept(gh, verdicts("run-07", [event()])) == one("opened")
    assert kept(gh, verdicts("run-07", [event()])) == one(None)  # a re-attempt
    assert kept(gh, verdicts("run-08", [event(runs=2)])) == one("commented")
    assert kept(gh, verdicts("run-09", [], measured=False)) == []  # another cron group
    assert kept(gh, verdicts("run-10", [])) == one("closed", is_open=False)
    assert kept(gh, verdicts("run-11", [event(runs=3)])) == one("reopened")
    assert kept(gh, verdicts("run-12", [event("suspected")])) == one(None)


POLICY = "confirm: {enabled: true, issues: true, issue_label: perf}\n"


def standin_gh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The stand-in gh first on PATH, without a token."""
    monkeypatch.setenv("PATH", f"{ROOT / 'tests/standin/bin'}:/usr/bin:/bin")
    monkeypatch.setenv("GH_STANDIN_STATE", str(tmp_path / "repo.json"))
    monkeypatch.setenv("GH_STANDIN_RECORD", str(tmp_path / "calls.jsonl"))
    for name in ("GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def issues_cli(cli: Invoke, tmp_path: Path, out: Path) -> Result:
    found = {"schema": "sglang-ci/verdicts/2", "current": "run-07", "events": [event()]}
    (tmp_path / "v.json").write_text(json.dumps(found))
    (tmp_path / "policy.yaml").write_text(POLICY)
    policy = ["--policy", str(tmp_path / "policy.yaml")]
    where = ["--verdicts", str(tmp_path / "v.json"), "--repo", "owner/repo", "--out", str(out)]
    return cli("confirm", "issues", *where, *policy)


def test_confirm_issues_out_records_what_gh_did_before_it_failed(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    standin_gh(monkeypatch, tmp_path)
    out = tmp_path / "confirmation" / "issues.json"
    result = issues_cli(cli, tmp_path, out)  # no token: gh fails on the listing
    assert result.exit_code == 1
    assert json.loads(out.read_text()) == {
        "schema": "sglang-ci/issues/1", "run": "run-07", "repository": "owner/repo",
        "enabled": True, "issues": [],
        "error": "gh issue list failed (4): To get started with GitHub CLI, please run:  "
                 "gh auth login",
    }  # fmt: skip
    monkeypatch.setenv("GH_TOKEN", "token")
    result = issues_cli(cli, tmp_path, out)  # replaces the file it wrote
    assert result.exit_code == 0, result.stderr
    assert [(i["number"], i["action"]) for i in json.loads(out.read_text())["issues"]] == [
        (1, "opened")
    ]


def test_confirm_issues_out_never_replaces_a_file_it_did_not_write(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    standin_gh(monkeypatch, tmp_path)
    monkeypatch.setenv("GH_TOKEN", "token")
    mine = tmp_path / "notes.json"
    mine.write_text('{"mine": true}\n')
    result = issues_cli(cli, tmp_path, mine)
    assert (result.exit_code, result.stderr) == (
        2,
        (
            f"error: {mine}: exists and confirm issues cannot prove it wrote it (no ownership "
            "marker .notes.json.sglang-ci-owner.json matching it); not replaced\n"
        ),
    )
    assert mine.read_text() == '{"mine": true}\n'
    assert not (tmp_path / "calls.jsonl").exists()


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_record_text_in_the_issue_body_stays_in_its_code_span(payload: str) -> None:
    hostile = event(
        config=payload,
        server={**SERVER, "runner_label": payload},
        first_bad_run=payload,
        differences={"sglang_version": ["0.5.6", payload], payload: ["a", "b"]},
    )
    v = verdicts("run-07", [hostile])
    url = "https://github.com/owner/repo/actions/runs/7"
    text = issues.body(v.events[0], None, issues.RunInfo(name="run-07", url=url))
    rendered = render_markdown(text)
    assert_harmless(text, rendered, link=url)
    assert one_line(payload) in inside_code(rendered)
    assert issues.parse_issue(1, "OPEN", text, ()) is not None
