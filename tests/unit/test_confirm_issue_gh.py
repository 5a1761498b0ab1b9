"""The tracking issues through gh (generator/confirm/issue_gh.py): the bot's issues as gh
lists them, the actions carried out, and what the run leaves of them; gh scripted here,
and the stand-in gh for its failures."""

from __future__ import annotations

import json
from typing import Any

import pytest

from generator.confirm.issue_gh import Gh, IssueError, apply, issues, tracked
from generator.confirm.issues import Action, plan
from generator.confirm.tracked import Tracked
from generator.confirm.tracking_issue import BOT, IssueRun
from tests.unit.test_confirm_issues import event, gh_client, verdicts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from generator.confirm.events import CompareEvents

SERVER = {"config": "c", "fingerprint": "f", "runner_label": "l", "image_family": "i"}


def marked(event_id: str) -> str:
    data = {"id": event_id, "server": SERVER, "metric": "output_throughput_per_gpu"}
    return f"<!-- sglang-ci-event {json.dumps(data)} -->"


def listed(number: int, body: str, author: str = BOT, state: str = "OPEN") -> dict[str, Any]:
    return {"number": number, "state": state, "body": body, "author": {"login": author},
            "url": f"https://github.com/owner/repo/issues/{number}", "labels": []}  # fmt: skip


class Scripted(Gh):
    """gh answering each command (its first two words, and the issue number of a view)
    from `answers`; every argv kept."""

    def __init__(self, answers: dict[str, str]) -> None:
        super().__init__("owner/repo", program="gh")
        self.answers = answers
        self.argv: list[list[str]] = []

    def _run(self, argv: list[str], args: Sequence[str]) -> str:
        self.argv.append(argv)
        key = " ".join(args[:3] if args[:2] == ("issue", "view") else args[:2])
        return self.answers.get(key, "")

    def commands(self) -> list[str]:
        return [" ".join(a[1:3]) for a in self.argv]


def listing(*items: dict[str, Any], **views: list[object]) -> Scripted:
    answers = {"issue list": json.dumps(list(items))}
    for number, comments in views.items():
        answers[f"issue view {number.removeprefix('n')}"] = json.dumps({"comments": comments})
    return Scripted(answers)


def test_the_listing_asks_for_every_issue_of_the_label_with_its_fields() -> None:
    gh = listing()
    assert issues(gh, "perf", set()) == []
    assert gh.argv == [[
        "gh", "issue", "list", "--state", "all", "--label", "perf", "--limit", "1000",
        "--json", "number,state,body,url,author,labels,createdAt", "--repo", "owner/repo",
    ]]  # fmt: skip


def test_the_comments_are_read_only_for_the_issues_wanted() -> None:
    comment = {"author": {"login": BOT}, "authorAssociation": "NONE", "viewerDidAuthor": True,
               "body": "<!-- sglang-ci-run run-08 -->", "createdAt": "2026-11-02"}  # fmt: skip
    gh = listing(listed(1, marked("ev-1")), listed(2, marked("ev-2")), n1=[comment])
    one, two = issues(gh, "perf", {"ev-1"})
    assert gh.commands()[1:] == ["issue view"]
    assert gh.argv[1][:4] == ["gh", "issue", "view", "1"]
    assert (one.event, one.runs, one.server) == (
        "ev-1",
        frozenset({"run-08"}),
        ("c", "f", "l", "i"),
    )
    assert (two.event, two.runs) == ("ev-2", frozenset())


def test_the_comments_of_a_server_that_came_back_and_of_every_open_issue() -> None:
    gh = listing(listed(1, marked("ev-1")), listed(2, marked("ev-2"), state="CLOSED"))
    issues(gh, "perf", set(), servers=frozenset({("c", "f", "l", "i")}))
    assert [a[3] for a in gh.argv[1:]] == ["1", "2"]
    gh = listing(listed(1, marked("ev-1")), listed(2, marked("ev-2"), state="CLOSED"))
    issues(gh, "perf", set(), open_issues=True)
    assert [a[3] for a in gh.argv[1:]] == ["1"]


def test_a_comment_without_an_author_is_by_unknown() -> None:
    gh = listing(listed(1, marked("ev-1")), n1=[{"body": "/sglang-ci ack"}, "not a comment"])
    [found] = issues(gh, "perf", {"ev-1"})
    [other] = found.others
    assert (other.author, other.association, other.mine, other.created_at) == (
        "unknown", "NONE", False, None,
    )  # fmt: skip


def test_a_marker_in_someone_elses_issue_is_ignored_with_a_warning() -> None:
    said: list[str] = []
    gh = listing(listed(1, marked("ev-1"), author="mallory"), listed(2, "a plain issue", "bob"),
                 {"number": 3, "body": marked("ev-3"), "state": "OPEN"})  # fmt: skip
    assert issues(gh, "perf", {"ev-1"}, warn=said.append) == []
    ignored = "not by app/github-actions: its sglang-ci marker is ignored"
    assert said == [
        f"issue #1 was opened by mallory, {ignored}",
        f"issue #3 was opened by unknown, {ignored}",
    ]
    assert gh.commands() == ["issue list"]


def test_a_bot_issue_whose_marker_does_not_read_is_skipped_with_one_warning() -> None:
    said: list[str] = []
    gh = listing(listed(1, "<!-- sglang-ci-event {oops} -->"), listed(2, "no marker at all"))
    assert issues(gh, "perf", set(), warn=said.append) == []
    assert said == ["issue #1: a malformed sglang-ci-event marker (not JSON), skipped"]


def test_a_listing_without_a_number_is_skipped_and_one_not_a_list_refused() -> None:
    gh = Scripted({"issue list": json.dumps([{"number": "1", "body": marked("e")}, 7])})
    assert issues(gh, "perf", set()) == []
    with pytest.raises(IssueError, match=r"^gh issue list: not a list of issues$"):
        issues(Scripted({"issue list": "{}"}), "perf", set())
    with pytest.raises(IssueError, match=r"^gh issue list: not JSON: Expecting value: line 1"):
        issues(Scripted({"issue list": "<html>"}), "perf", set())
    assert issues(Scripted({}), "perf", set()) == []  # an empty answer: no issue


def test_the_actions_are_carried_out_in_order_and_each_kept_as_done() -> None:
    gh = Scripted({"issue create": "https://github.com/owner/repo/issues/7\n"})
    actions = [
        Action(kind="create", event="e1", number=None, title="T", body="B"),
        Action(kind="comment", event="e2", number=3, body="C"),
        Action(kind="close", event="e3", number=4, body="R"),
        Action(kind="reopen", event="e4", number=5, body="O"),
    ]
    done: list[Tracked] = []
    assert apply(gh, actions, "perf", done) == [
        "opened https://github.com/owner/repo/issues/7 for event e1",
        "commented on #3 (event e2)",
        "closed #4 (event e3)",
        "reopened #5 (event e4)",
    ]
    assert gh.commands() == [
        "label create", "issue create", "issue comment", "issue close", "issue reopen",
    ]  # fmt: skip
    described = "A performance regression sglang-ci confirmed"
    assert gh.argv[0][1:] == ["label", "create", "perf", "--color", "d73a4a", "--description",
                              described, "--force", "--repo", "owner/repo"]  # fmt: skip
    assert gh.argv[1][3:8] == ["--title", "T", "--label", "perf", "--body-file"]
    assert gh.argv[3][1:] == ["issue", "close", "4", "--comment", "R", "--repo", "owner/repo"]
    assert done == [
        Tracked(event="e1", number=7, url="https://github.com/owner/repo/issues/7", open=True,
                action="opened"),
        Tracked(event="e2", number=3, url=None, open=True, action="commented"),
        Tracked(event="e3", number=4, url=None, open=False, action="closed"),
        Tracked(event="e4", number=5, url=None, open=True, action="reopened"),
    ]  # fmt: skip


def test_no_label_without_an_issue_to_open_and_an_unknown_url_no_number() -> None:
    gh = Scripted({})
    assert apply(gh, [Action(kind="comment", event="e", number=1, body="b")], "perf") == [
        "commented on #1 (event e)"
    ]
    assert gh.commands() == ["issue comment"]
    done: list[Tracked] = []
    apply(Scripted({}), [Action(kind="create", event="e", number=None, body="b")], "perf", done)
    assert done == [Tracked(event="e", number=None, url=None, open=True, action="opened")]


def test_the_body_reaches_gh_as_a_file() -> None:
    seen: list[str] = []

    class Reading(Scripted):
        def _run(self, argv: list[str], _args: Sequence[str]) -> str:
            with open(argv[argv.index("--body-file") + 1], encoding="utf-8") as f:
                seen.append(f.read())
            return ""

    Reading({}).with_body(["issue", "comment", "1"], "ünïcode `body`\n")
    assert seen == ["ünïcode `body`\n"]


def test_what_the_run_leaves_is_its_events_issues_and_what_it_did() -> None:
    v = verdicts("run-08", [event(), event(id="ev-2")])
    first = listed(1, marked("ev-3f2a9c41d07b"))
    old = listed(2, marked("ev-old"), state="CLOSED")
    found = issues(listing(first, old), "perf", set())
    done = [Tracked(event="ev-old", number=2, url=None, open=True, action="reopened")]
    assert tracked(v, found, done) == [
        Tracked(event="ev-3f2a9c41d07b", number=1, url="https://github.com/owner/repo/issues/1",
                open=True, action=None),
        Tracked(event="ev-old", number=2, url="https://github.com/owner/repo/issues/2",
                open=True, action="reopened"),
    ]  # fmt: skip


def test_a_program_that_cannot_run_or_fails_is_one_line() -> None:
    with pytest.raises(IssueError, match=r"^cannot run /nonexistent/gh: \[Errno 2\] "):
        Gh("o/r", program="/nonexistent/gh")("issue", "list")
    with pytest.raises(IssueError, match=r"^gh issue list failed \(1\): no message$"):
        Gh("o/r", program="false")("issue", "list", "--state", "all")


@pytest.fixture
def gh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Gh:
    return gh_client(tmp_path, monkeypatch)


def keep(gh: Gh, v: CompareEvents) -> list[str]:
    servers = frozenset(e.server.key() for e in v.events)
    found = issues(gh, "perf", {e.id for e in v.events}, servers=servers)
    run = IssueRun(name=v.current, url=f"https://github.com/owner/repo/actions/runs/{v.current}")
    return apply(gh, plan(v, {}, found, run), "perf")


def test_a_failing_gh_is_one_line(gh: Gh, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GH_TOKEN")
    with pytest.raises(IssueError) as caught:
        keep(gh, verdicts("run-07", [event()]))
    assert str(caught.value) == (
        "gh issue list failed (4): To get started with GitHub CLI, please run:  gh auth login"
    )


def kept(gh: Gh, v: CompareEvents) -> list[Tracked]:
    """What `confirm issues --out` records for run `v`."""
    listed = issues(gh, "perf", {e.id for e in v.events})
    done: list[Tracked] = []
    apply(gh, plan(v, {}, listed, IssueRun(name=v.current, url=None)),
                 "perf", done)  # fmt: skip
    return tracked(v, listed, done)


def test_each_issue_is_recorded_with_its_number_url_and_the_action_taken(
    gh: Gh,
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
