"""Tracking issues (generator/confirm/issues.py, issue_gh.py) against the stand-in gh,
which keeps a repository in a JSON file and records every call."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from generator.confirm import issues
from generator.confirm.events import CompareEvents, parse
from generator.confirm.issue_gh import Gh, apply
from generator.confirm.issue_gh import issues as tracking_issues
from generator.confirm.issues import plan
from generator.confirm.tracking_issue import IssueRun, parse_issue
from generator.core.logtext import one_line
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


def document(
    run: str, events: list[dict[str, Any]], measured: bool = True, value: float = 1234.5
) -> dict[str, Any]:
    """A compare JSON of `run`: its events, its one point (value of throughput per GPU
    against a baseline of 1342) when measured."""
    metrics = {"output_throughput_per_gpu": {"current": value, "change": value / 1342 - 1}}
    points = [{"config": CONFIG, **SERVER, "isl": 1024, "osl": 1024, "concurrency": 4,
               "verdict": "ok", "metrics": metrics}] if measured else []  # fmt: skip
    return {"schema": "sglang-ci/verdicts/2", "current": run, "events": events, "points": points}


def verdicts(
    run: str, events: list[dict[str, Any]], measured: bool = True, value: float = 1234.5
) -> CompareEvents:
    return parse(document(run, events, measured, value), "v.json")


def gh_client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Gh:
    """The stand-in gh, with a token, as the client of `owner/repo`."""
    monkeypatch.setenv("GH_STANDIN_STATE", str(tmp_path / "repo.json"))
    monkeypatch.setenv("GH_STANDIN_RECORD", str(tmp_path / "calls.jsonl"))
    monkeypatch.setenv("GH_TOKEN", "token")
    monkeypatch.setenv("GH_STANDIN_PYTHON", sys.executable)  # not a version manager's shim
    return Gh("owner/repo", program=GH)


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Gh:
    return gh_client(tmp_path, monkeypatch)


def calls(tmp_path: Path) -> list[str]:
    path = tmp_path / "calls.jsonl"
    lines = path.read_text().splitlines() if path.exists() else []
    return [json.loads(line)["command"] for line in lines]


def writes(tmp_path: Path) -> list[str]:
    return [c for c in calls(tmp_path) if c not in ("issue list", "issue view")]


def keep(gh: Gh, v: CompareEvents) -> list[str]:
    servers = frozenset(e.server.key() for e in v.events)
    found = tracking_issues(gh, "perf", {e.id for e in v.events}, servers=servers)
    run = IssueRun(name=v.current, url=f"https://github.com/owner/repo/actions/runs/{v.current}")
    return apply(gh, plan(v, {}, found, run), "perf")


def repo(tmp_path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((tmp_path / "repo.json").read_text())
    return data


def test_one_issue_per_event_commented_while_open_and_closed_on_recovery(
    gh: Gh, tmp_path: Path
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
    still, recovered = (c["body"] for c in issue["comments"])
    assert still.startswith("Still open in run [run-08](")
    # the event's size, then this run's own numbers at its points
    assert still.endswith(
        "`output_throughput_per_gpu -8.0% [-9.0%, -7.0%]`. This run's output_throughput_per_gpu:"
        " 1024x1024 c4 1,234.5 (-8.0%).\n\n<!-- sglang-ci-run run-08 -->\n"
    )
    assert recovered.startswith("Recovered: run [run-10](")
    assert {c["author"] for c in issue["comments"]} == {"app/github-actions"}


@pytest.mark.parametrize("state", ["suspected", "cleared"])
def test_an_event_not_confirmed_opens_no_issue(gh: Gh, tmp_path: Path, state: str) -> None:
    # cleared: the A/B found no difference (noise alone)
    assert keep(gh, verdicts("run-07", [event(state, confirmed_by=None)])) == []
    assert writes(tmp_path) == []


def test_an_event_back_after_its_issue_closed_reopens_it(gh: Gh, tmp_path: Path) -> None:
    keep(gh, verdicts("run-07", [event()]))
    keep(gh, verdicts("run-08", []))
    assert keep(gh, verdicts("run-09", [event(runs=3)])) == ["reopened #1 (event ev-3f2a9c41d07b)"]
    [issue] = repo(tmp_path)["issues"]
    assert issue["state"] == "OPEN"
    assert writes(tmp_path).count("issue create") == 1


def test_issues_without_the_marker_are_not_touched(gh: Gh, tmp_path: Path) -> None:
    state = {"issues": [{"number": 1, "title": "t", "body": "hand-written", "state": "OPEN",
                         "labels": ["perf"], "comments": []}], "labels": ["perf"]}  # fmt: skip
    (tmp_path / "repo.json").write_text(json.dumps(state))
    assert keep(gh, verdicts("run-07", [])) == []
    assert keep(gh, verdicts("run-08", [event()])) == [
        "opened https://github.com/owner/repo/issues/2 for event ev-3f2a9c41d07b"
    ]


POLICY = "confirm: {enabled: true, issues: true, issue_label: perf}\n"


def standin_gh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The stand-in gh first on PATH, without a token."""
    monkeypatch.setenv("PATH", f"{ROOT / 'tests/standin/bin'}:/usr/bin:/bin")
    monkeypatch.setenv("GH_STANDIN_STATE", str(tmp_path / "repo.json"))
    monkeypatch.setenv("GH_STANDIN_RECORD", str(tmp_path / "calls.jsonl"))
    for name in ("GH_TOKEN", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def issues_cli(
    cli: Invoke, tmp_path: Path, out: Path, found: dict[str, Any] | None = None
) -> Result:
    found = found or {"schema": "sglang-ci/verdicts/2", "current": "run-07", "events": [event()]}
    (tmp_path / "v.json").write_text(json.dumps(found))
    (tmp_path / "policy.yaml").write_text(POLICY)
    policy = ["--policy", str(tmp_path / "policy.yaml")]
    where = ["--verdicts", str(tmp_path / "v.json"), "--repo", "owner/repo", "--out", str(out)]
    return cli("confirm", "issues", *where, *policy)


def test_a_step_that_comes_back_reopens_the_issue_its_first_event_closed(
    gh: Gh, tmp_path: Path
) -> None:
    keep(gh, verdicts("run-07", [event()]))
    assert keep(gh, verdicts("run-08", [])) == ["closed #1 (event ev-3f2a9c41d07b)"]
    # the same server, the same metric, a new first bad run: a new event
    back = event(id="ev-0000000000b2", first_bad_run="run-09", last_good_run="run-08")
    assert keep(gh, verdicts("run-09", [back], value=1200.0)) == [
        "reopened #1 (event ev-0000000000b2)"
    ]
    assert keep(gh, verdicts("run-09", [back])) == []  # a re-attempt finds its comment
    assert keep(gh, verdicts("run-10", [{**back, "runs": 2}])) == [
        "commented on #1 (event ev-0000000000b2)"
    ]
    [issue] = repo(tmp_path)["issues"]
    reopened = issue["comments"][1]["body"]
    assert reopened.startswith("Back in run [run-09](")
    assert "since `run-09` (last good `run-08`). This run's output_throughput_per_gpu: " in (
        reopened
    )
    assert '"id": "ev-0000000000b2"' in reopened
    # another metric on the same server is another regression: an issue of its own
    ttft = event(
        id="ev-0000000000c3",
        changes={"median_ttft_ms": {"change": 0.3, "low": 0.2, "high": 0.4}},
    )
    assert keep(gh, verdicts("run-11", [{**back, "runs": 3}, ttft])) == [
        "commented on #1 (event ev-0000000000b2)",
        "opened https://github.com/owner/repo/issues/2 for event ev-0000000000c3",
    ]


def marker_of(event_id: str | None, **extra: Any) -> str:
    data = {"server": {"config": CONFIG, **SERVER}, **extra}
    if event_id is not None:
        data["id"] = event_id
    return f"<!-- sglang-ci-event {json.dumps(data)} -->"


MARKED = marker_of("ev-3f2a9c41d07b")
BOT = "app/github-actions"


def state_issue(number: int, body: str, author: str, **extra: Any) -> dict[str, Any]:
    return {"number": number, "title": "t", "body": body, "state": "OPEN", "labels": ["perf"],
            "author": author, "comments": [], **extra}  # fmt: skip


FORGED_COMMENT = {
    "body": "<!-- sglang-ci-run run-07 -->" + marker_of("ev-0000000000ff"),
    "author": "mallory",
}
IGNORED = (
    "issue #1 was opened by mallory, not by app/github-actions: its sglang-ci marker is ignored"
)
FORGED = {
    # someone else's issue with the event's marker: not a tracking issue, never closed
    "another user's issue": (
        [state_issue(1, MARKED, "mallory")],
        IGNORED,
        "opened https://github.com/owner/repo/issues/2 for event ev-3f2a9c41d07b",
    ),
    # a run marker in someone's comment would make the bot believe it commented already
    "a comment": (
        [state_issue(1, MARKED, BOT, comments=[FORGED_COMMENT])],
        "issue #1: a sglang-ci marker in a comment by mallory, ignored",
        "commented on #1 (event ev-3f2a9c41d07b)",
    ),
    "malformed": (
        [state_issue(1, "<!-- sglang-ci-event {oops} -->", BOT)],
        "issue #1: a malformed sglang-ci-event marker (not JSON), skipped",
        "opened https://github.com/owner/repo/issues/2 for event ev-3f2a9c41d07b",
    ),
    "id-less": (
        [state_issue(1, marker_of(None), BOT)],
        "issue #1: a sglang-ci-event marker without an event id, skipped",
        "opened https://github.com/owner/repo/issues/2 for event ev-3f2a9c41d07b",
    ),
}


@pytest.mark.parametrize("case", FORGED.keys())
def test_a_forged_marker_is_ignored_with_a_warning_and_the_step_exits_0(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    standin_gh(monkeypatch, tmp_path)
    monkeypatch.setenv("GH_TOKEN", "token")
    forged, warning, done = FORGED[case]
    (tmp_path / "repo.json").write_text(json.dumps({"issues": forged, "labels": ["perf"]}))
    result = issues_cli(cli, tmp_path, tmp_path / "issues.json")
    assert (result.exit_code, result.stdout, result.stderr) == (
        0, done + "\n", f"warning: {warning}\n",
    )  # fmt: skip
    # the next run measures the server back: only the bot's own issue is closed
    mine = 1 if "#1" in done else 2
    result = issues_cli(cli, tmp_path, tmp_path / "issues.json", document("run-08", []))
    assert (result.exit_code, result.stdout) == (0, f"closed #{mine} (event ev-3f2a9c41d07b)\n")
    states = {i["number"]: (i["state"], i["author"]) for i in repo(tmp_path)["issues"]}
    assert states[1] == ("CLOSED" if mine == 1 else "OPEN", forged[0]["author"])


def test_the_title_and_size_name_the_defining_metric_and_its_interval() -> None:
    found = verdicts("run-07", [event()]).events[0]
    assert issues.title(found) == (
        "Performance regression: deepseek-r1-fp8-tp4 -8.0% output_throughput_per_gpu since run-07"
    )
    assert issues.size(found) == "output_throughput_per_gpu -8.0% [-9.0%, -7.0%]"


def test_this_runs_numbers_are_each_points_value_and_change() -> None:
    v = verdicts("run-07", [event()], value=1208.0)
    assert issues.tonight(v.events[0], v) == (
        "This run's output_throughput_per_gpu: 1024x1024 c4 1,208.0 (-10.0%)."
    )
    assert issues.tonight(v.events[0], verdicts("run-07", [event()], measured=False)) == ""


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
    text = issues.body(v.events[0], None, IssueRun(name="run-07", url=url))
    rendered = render_markdown(text)
    assert_harmless(text, rendered, link=url)
    assert one_line(payload) in inside_code(rendered)
    assert parse_issue({"number": 1, "state": "OPEN", "body": text}, ()) is not None
