"""What `confirm issues --out` keeps (generator/confirm/tracked.py): the document of the
run's tracking issues, and each issue read back, whatever else the file holds."""

from __future__ import annotations

from typing import Any

import pytest

from generator.confirm.tracked import ACTIONS, SCHEMA, Tracked, document, read

URL = "https://github.com/owner/repo/issues/12"


def item(**extra: Any) -> dict[str, Any]:
    return {"event": "ev-1", "number": 12, "url": URL, "open": True, "action": "opened", **extra}


def test_the_document_lists_the_issues_by_event() -> None:
    b = Tracked(event="ev-b", number=2, url=None, open=False, action="closed")
    a = Tracked(event="ev-a", number=None, url=URL, open=True, action=None)
    assert document(run="r1", repository="owner/repo", enabled=True, issues=[b, a]) == {
        "schema": "sglang-ci/issues/1",
        "run": "r1",
        "repository": "owner/repo",
        "enabled": True,
        "error": None,
        "issues": [
            {"event": "ev-a", "number": None, "url": URL, "open": True, "action": None},
            {"event": "ev-b", "number": 2, "url": None, "open": False, "action": "closed"},
        ],
    }


def test_a_document_reads_back_as_it_was_written() -> None:
    kept = [Tracked(event=f"ev-{a}", number=i, url=URL, open=a != "closed", action=a)
            for i, a in enumerate(ACTIONS)]  # fmt: skip
    doc = document(run="r", repository="o/r", enabled=False, issues=kept, error="gh failed")
    assert doc["error"] == "gh failed"
    assert read(doc) == sorted(kept, key=lambda t: t.event)  # in the order of the events


@pytest.mark.parametrize(
    "data", [None, [], "text", {"schema": "sglang-ci/verdicts/2", "issues": [item()]}, {}]
)
def test_another_file_holds_no_issue(data: object) -> None:
    assert read(data) == []


def test_each_value_that_is_not_one_is_left_unknown() -> None:
    doc = {"schema": SCHEMA, "issues": [
        item(number=True, url="http://example.com/1", open="yes", action="deleted"),
        item(number="12", url=None, open=0, action=None),
    ]}  # fmt: skip
    assert read(doc) == [
        Tracked(event="ev-1", number=None, url=None, open=True, action=None),
        Tracked(event="ev-1", number=None, url=None, open=False, action=None),
    ]


def test_an_item_without_an_event_name_is_skipped() -> None:
    doc = {"schema": SCHEMA, "issues": ["ev-1", item(event=7), item(event=None), item()]}
    assert [t.event for t in read(doc)] == ["ev-1"]
    assert read({"schema": SCHEMA, "issues": None}) == []
