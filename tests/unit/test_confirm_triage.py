"""Triage marks (generator/confirm/triage.py) as people leave them on a tracking issue of
the stand-in gh: a label, or a command in a comment, each with who and when."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from generator.confirm import triage
from generator.confirm.triage import Mark
from tests.unit.test_confirm_issues import GH, MARKED, document, event, standin_gh

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from click.testing import Result

    from tests.conftest import Invoke

EVENT = "ev-3f2a9c41d07b"
POLICY = "confirm: {enabled: true, issues: true, issue_label: perf}\n"


def as_person(tmp_path: Path, who: str, when: str, *args: str) -> None:
    """`gh ARGS` as `who` at `when`."""
    env = {"PATH": "/usr/bin:/bin", "GH_TOKEN": "token", "GH_STANDIN_ACTOR": who,
           "GH_STANDIN_NOW": when, "GH_STANDIN_STATE": str(tmp_path / "repo.json"),
           "GH_STANDIN_PYTHON": sys.executable}  # fmt: skip
    subprocess.run([GH, *args, "--repo", "owner/repo"], env=env, check=True, capture_output=True)


def triage_cli(cli: Invoke, tmp_path: Path) -> Result:
    (tmp_path / "v.json").write_text(json.dumps(document("run-08", [event()])))
    (tmp_path / "policy.yaml").write_text(POLICY)
    return cli("confirm", "triage", "--verdicts", str(tmp_path / "v.json"), "--repo",
               "owner/repo", "--out", str(tmp_path / "triage.json"), "--policy",
               str(tmp_path / "policy.yaml"))  # fmt: skip


@pytest.fixture
def tracked_issue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The bot's issue #1 for EVENT, opened on 2026-01-04; alice collaborates."""
    standin_gh(monkeypatch, tmp_path)
    monkeypatch.setenv("GH_TOKEN", "token")
    issue = {"number": 1, "title": "t", "body": MARKED, "state": "OPEN", "labels": ["perf"],
             "author": "app/github-actions", "createdAt": "2026-01-04T14:30:00Z",
             "comments": []}  # fmt: skip
    state = {"issues": [issue], "labels": ["perf", *triage.LABELS], "collaborators": ["alice"]}
    (tmp_path / "repo.json").write_text(json.dumps(state))
    return tmp_path


def test_a_label_and_a_trusted_command_are_marks_with_who_and_when(
    cli: Invoke, tracked_issue: Path
) -> None:
    tmp_path = tracked_issue
    as_person(tmp_path, "alice", "2026-01-05T09:00:00Z",
              "issue", "edit", "1", "--add-label", "sglang-ci:invalid-infra")  # fmt: skip
    as_person(tmp_path, "mallory", "2026-01-05T10:00:00Z",
              "issue", "comment", "1", "--body", "/sglang-ci fixed")  # fmt: skip
    as_person(tmp_path, "alice", "2026-01-05T11:00:00Z",
              "issue", "comment", "1", "--body", "/sglang-ci frobnicate")  # fmt: skip
    result = triage_cli(cli, tmp_path)
    assert (result.exit_code, result.stdout) == (
        0, f"{EVENT} (#1): invalid (infra) by alice on 2026-01-05\n",
    )  # fmt: skip
    assert result.stderr == (
        "warning: issue #1: a triage command by mallory (NONE), who may not triage this "
        "repository: ignored\n"
        "warning: issue #1: unknown triage command '/sglang-ci frobnicate' by alice, ignored "
        "(acknowledge, invalid noise|infra, fixed)\n"
    )
    # the repository's owner, later: the newest mark stands
    as_person(tmp_path, "owner", "2026-01-06T08:00:00Z", "issue", "comment", "1", "--body",
              "Bisected to AITER.\n/sglang-ci fixed in AITER 0.1.8\nthanks")  # fmt: skip
    result = triage_cli(cli, tmp_path)
    assert result.stdout == f"{EVENT} (#1): fixed by owner on 2026-01-06\n"
    marks = triage.read(json.loads((tmp_path / "triage.json").read_text()))
    assert marks == [
        Mark(event=EVENT, issue=1, state="invalid", reason="infra", note=None, by="alice",
             at="2026-01-05T09:00:00Z", source="label"),
        Mark(event=EVENT, issue=1, state="fixed", reason=None, note="in AITER 0.1.8",
             by="owner", at="2026-01-06T08:00:00Z", source="comment"),
    ]  # fmt: skip


def test_a_mark_made_before_the_issue_was_reopened_for_a_new_event_stays_with_the_old(
    cli: Invoke, tracked_issue: Path
) -> None:
    tmp_path = tracked_issue
    invalid = "/sglang-ci invalid noise flaky runner"
    as_person(tmp_path, "alice", "2026-01-05T09:00:00Z", "issue", "comment", "1", "--body", invalid)
    back = MARKED.replace(EVENT, "ev-0000000000b2")
    as_person(tmp_path, "app/github-actions", "2026-01-08T14:30:00Z",
              "issue", "reopen", "1", "--comment", f"Back in run run-09.\n\n{back}")  # fmt: skip
    as_person(tmp_path, "alice", "2026-01-09T09:00:00Z",
              "issue", "comment", "1", "--body", "/sglang-ci ack")  # fmt: skip
    assert triage_cli(cli, tmp_path).exit_code == 0
    marks = triage.newest(triage.read(json.loads((tmp_path / "triage.json").read_text())))
    assert {e: (m.state, m.reason, m.note) for e, m in marks.items()} == {
        EVENT: ("invalid", "noise", "flaky runner"),
        "ev-0000000000b2": ("acknowledged", None, None),
    }


def test_without_gh_the_marks_file_says_why_and_the_command_fails(
    cli: Invoke, tracked_issue: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GH_TOKEN")
    result = triage_cli(cli, tracked_issue)
    assert result.exit_code == 1
    doc = json.loads((tracked_issue / "triage.json").read_text())
    assert (doc["marks"], doc["error"]) == (
        [],
        "gh issue list failed (4): To get started with GitHub CLI, please run:  gh auth login",
    )
