"""`confirm triage` and `confirm issues` (generator/confirm/issue_sync.py): gh asked only
when the policy keeps tracking issues, a person's settled mark respected, and the document
written even when gh fails half way."""

from __future__ import annotations

import json
from typing import Any

from generator.confirm import issue_sync
from generator.confirm.tracking_issue import BOT
from tests.unit.test_confirm_issue_gh import Scripted, listed
from tests.unit.test_confirm_issues import MARKED, document, event, issues_cli, standin_gh
from tests.unit.test_confirm_tracked import URL

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from tests.conftest import Invoke

EVENT = "ev-3f2a9c41d07b"
ON = "confirm: {enabled: true, issues: true, issue_label: perf}\n"
OFF = "confirm: {enabled: true, issues: false}\n"


def files(tmp_path: Path, policy: str, found: dict[str, Any]) -> tuple[Path, Path]:
    (tmp_path / "v.json").write_text(json.dumps(found))
    (tmp_path / "policy.yaml").write_text(policy)
    return tmp_path / "v.json", tmp_path / "policy.yaml"


def scripted(monkeypatch: pytest.MonkeyPatch, answers: dict[str, str]) -> list[Scripted]:
    """gh answering from `answers`; the ones the command made."""
    made: list[Scripted] = []

    def gh(repo: str) -> Scripted:
        assert repo == "owner/repo"
        made.append(Scripted(answers))
        return made[-1]

    monkeypatch.setattr(issue_sync, "Gh", gh)
    return made


def sync(tmp_path: Path, policy: str, found: dict[str, Any], **extra: Any) -> int:
    verdicts, policy_path = files(tmp_path, policy, found)
    opts = {"outcomes_path": None, "run_url": None, "out": tmp_path / "issues.json",
            "triage_path": None, **extra}  # fmt: skip
    return issue_sync.sync_issues(
        tmp_path, verdicts=verdicts, repo="owner/repo", bot=BOT, policy_path=policy_path, **opts
    )


def test_with_issues_off_gh_is_not_asked_and_the_document_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made = scripted(monkeypatch, {})
    assert sync(tmp_path, OFF, document("run-07", [event()])) == 0
    assert made == []
    assert capsys.readouterr().out == "tracking issues are off (regression.confirm.issues)\n"
    assert json.loads((tmp_path / "issues.json").read_text()) == {
        "schema": "sglang-ci/issues/1", "run": "run-07", "repository": "owner/repo",
        "enabled": False, "error": None, "issues": [],
    }  # fmt: skip


def test_each_action_is_a_line_and_the_document_its_issue(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scripted(monkeypatch, {"issue list": "[]", "issue create": URL + "\n"})
    assert sync(tmp_path, ON, document("run-07", [event()])) == 0
    assert capsys.readouterr().out == f"opened {URL} for event {EVENT}\n"
    [kept] = json.loads((tmp_path / "issues.json").read_text())["issues"]
    assert kept == {"event": EVENT, "number": 12, "url": URL, "open": True, "action": "opened"}


def test_an_event_a_person_marked_invalid_leaves_its_issue_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers = {"issue list": json.dumps([listed(1, MARKED)]), "issue view 1": '{"comments": []}'}
    mark = {"event": EVENT, "issue": 1, "state": "invalid", "reason": "infra", "note": None,
            "by": "alice", "at": "2026-01-05T09:00:00Z", "source": "comment"}  # fmt: skip
    triage = tmp_path / "triage.json"
    triage.write_text(json.dumps({"schema": "sglang-ci/triage/1", "run": "r", "marks": [mark]}))
    found = document("run-08", [event(runs=2)])
    made = scripted(monkeypatch, answers)
    assert sync(tmp_path, ON, found, triage_path=triage) == 0
    assert [m.commands() for m in made] == [["issue list", "issue view"]]
    assert capsys.readouterr().out == ""
    [kept] = json.loads((tmp_path / "issues.json").read_text())["issues"]
    assert (kept["number"], kept["action"]) == (1, None)
    # without the mark, the run comments on it
    made = scripted(monkeypatch, answers)
    assert sync(tmp_path, ON, found) == 0
    assert made[0].commands()[-1] == "issue comment"


def test_triage_with_issues_off_writes_no_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    made = scripted(monkeypatch, {})
    verdicts, policy = files(tmp_path, OFF, document("run-07", [event()]))
    out = tmp_path / "triage.json"
    assert issue_sync.read_triage(tmp_path, verdicts=verdicts, repo="owner/repo", out=out,
                                  bot=BOT, policy_path=policy) == 0  # fmt: skip
    assert (made, capsys.readouterr().out) == ([], "")
    assert json.loads(out.read_text()) == {
        "schema": "sglang-ci/triage/1", "run": "run-07", "marks": [], "error": None,
    }  # fmt: skip


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
