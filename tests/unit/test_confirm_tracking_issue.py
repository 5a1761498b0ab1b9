"""A tracking issue read back from its markers (generator/confirm/tracking_issue.py)."""

from __future__ import annotations

from generator.confirm.tracking_issue import Comment, IssueRun, marker, parse_issue, run_marker
from tests.unit.test_confirm_issues import SERVER, event, verdicts

RUN = IssueRun(name="run-07", url=None)


def test_an_issue_is_read_back_from_the_markers_the_bot_wrote() -> None:
    found = verdicts("run-07", [event()]).events[0]
    text = f"body\n\n{marker(found)}\n{run_marker(RUN)}\n"
    again = Comment(author="app/github-actions", association="NONE", mine=True,
                    body="<!-- sglang-ci-run run-08 -->", created_at=None)  # fmt: skip
    item = {"number": 12, "state": "OPEN", "body": text, "labels": [{"name": "perf"}]}
    issue = parse_issue(item, [again])
    assert issue is not None
    assert (issue.number, issue.open, issue.event, issue.metric) == (
        12, True, "ev-3f2a9c41d07b", "output_throughput_per_gpu",
    )  # fmt: skip
    assert issue.server == ("deepseek-r1-fp8-tp4", *SERVER.values())
    assert (issue.runs, issue.labels) == (frozenset({"run-07", "run-08"}), ("perf",))


def test_a_marker_that_would_close_the_comment_is_escaped() -> None:
    found = verdicts("run-07", [event(config="a-->b<c ##[x]")]).events[0]
    shown = marker(found)
    assert '"config": "a--\\u003eb\\u003cc ##\\u005bx]"' in shown
    assert shown.count("-->") == 1


def test_a_comment_by_someone_else_counts_for_nothing_with_a_warning() -> None:
    found = verdicts("run-07", [event()]).events[0]
    warned: list[str] = []
    forged = Comment(author="mallory", association="NONE", mine=False,
                     body="<!-- sglang-ci-run run-09 -->", created_at=None)  # fmt: skip
    issue = parse_issue(
        {"number": 3, "state": "CLOSED", "body": marker(found)}, [forged], warned.append
    )
    assert issue is not None
    assert (issue.open, issue.runs, issue.others) == (False, frozenset(), (forged,))
    assert warned == ["issue #3: a sglang-ci marker in a comment by mallory, ignored"]


def test_a_body_without_a_marker_that_reads_is_no_issue() -> None:
    warned: list[str] = []
    assert parse_issue({"number": 4, "body": "no marker"}, (), warned.append) is None
    assert (
        parse_issue({"number": 5, "body": '<!-- sglang-ci-event {"id": ""} -->'}, (), warned.append)
        is None
    )
    assert warned == ["issue #5: a sglang-ci-event marker without an event id, skipped"]
