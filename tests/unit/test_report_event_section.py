"""One event's section of the regressions pages (generator/report/event_section.py): its
runs linked, what changed, the first-bad diff from the runs' records, its curves, its A/B,
tracking issue and triage mark."""

from __future__ import annotations

from typing import Any

from generator.confirm.tracked import Tracked
from generator.confirm.triage import Mark
from generator.report.confirmations import Confirmations
from generator.report.event_section import EventPageContext, section
from generator.report.timeline import RunView, load_points
from generator.results.load import open_store
from generator.results.shown_verdicts import Move, ShownEvent
from tests import results_gen as gen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.results.store import Store

CONFIG = "ds-fp8-tp8"
R0, R1, R2 = (gen.Run(day=d).name for d in range(3))
TITLES = {R0: "night 0", R1: "night 1", R2: "night 2"}


def small_store(tmp_path: Path, days: int = 3) -> Store:
    """`days` nightly runs of ds-fp8-tp8 (1024x1024 and 8192x1024, c=4 and 16) and
    ds-mtp (1024x1024, c=4), each night's image its own digest, the dashboard's tables
    loaded."""
    points = [
        *gen.sweep(CONFIG, concurrencies=(4, 16), pairs=((1024, 1024), (8192, 1024))),
        *gen.sweep("ds-mtp", concurrencies=(4,), spec="mtp", draft_tokens=3),
    ]
    gen.history(tmp_path / "history", points, days, noise=0.0)
    store = open_store(history=tmp_path / "history")
    load_points(store)
    return store


def view(name: str, url: str | None = None) -> RunView:
    return RunView(name=name, role="history", t="", title=TITLES.get(name, name), url=url,
                   outcome=None, records=0, images=(), catalog_commit=None)  # fmt: skip


def context(**extra: Any) -> EventPageContext:
    given: dict[str, Any] = {
        "marks": {}, "views": {R2: view(R2, "https://example.com/r2")}, "titles": TITLES,
        "pages": {CONFIG: "config/ds-fp8-tp8.html"}, "displays": {CONFIG: "DS-FP8"}, **extra,
    }  # fmt: skip
    return EventPageContext(**given)


def event(**extra: Any) -> ShownEvent:
    given: dict[str, Any] = {
        "id": "ev-1", "config": CONFIG, "verdict": "regression", "first_bad_run": R1,
        "last_good_run": R0, "points": ("1024x1024 c=4",),
        "metrics": ("output_throughput_per_gpu",), "changes": (("old", "text"),),
        "at": ((1024, 1024, 4),),
        "moves": (Move(metric="output_throughput_per_gpu", change=-0.08, low=-0.1, high=-0.06),),
        "differences": (("sglang_version", "0.5.6", "0.5.7"),), **extra,
    }  # fmt: skip
    return ShownEvent(**given)


def test_the_section_links_its_runs_pages_and_what_changed(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    found = section(store, context(), Confirmations(), event(), [R2, R1], {CONFIG: R2})
    assert {k: found[k] for k in ("id", "anchor", "verdict", "display", "page", "own")} == {
        "id": "ev-1", "anchor": "ev-1", "verdict": "regression", "display": "DS-FP8",
        "page": "config/ds-fp8-tp8.html", "own": "event/ev-1.html",
    }  # fmt: skip
    assert found["compare"] == f"compare/{R0}--{R1}.html"
    assert (found["first_bad"], found["last_good"]) == ("night 1", "night 0")
    assert found["latest"] == '<a href="https://example.com/r2">night 2</a>'
    assert found["runs"] == ['<a href="https://example.com/r2">night 2</a>', "night 1"]
    assert found["metrics"] == ["tok/s/GPU"]
    assert found["changes"] == [
        ("tok/s/GPU", "-8.0% [-10.0%, -6.0%]"),
        ("SGLang", "0.5.6 -> 0.5.7"),
    ]
    assert (found["issue"], found["triage"], found["ab"]) == (None, None, None)


def test_the_first_bad_diff_marks_what_the_records_say_changed(tmp_path: Path) -> None:
    found = section(small_store(tmp_path), context(), Confirmations(), event(), [R1], {})
    rows = {r["what"]: r for r in found["diff"]}
    assert rows["image digest"] == {
        "what": "image digest", "good": "sha256:000000000000", "bad": "sha256:010101010101",
        "changed": True,
    }  # fmt: skip
    assert rows["SGLang"] == {"what": "SGLang", "good": "0.5.6", "bad": "0.5.6", "changed": False}


def test_one_chart_per_pair_of_the_event_with_the_latest_run_when_it_is_another(
    tmp_path: Path,
) -> None:
    store = small_store(tmp_path)
    both = event(at=((1024, 1024, 4), (8192, 1024, 16)))
    found = section(store, context(), Confirmations(), both, [R1], {CONFIG: R2})
    chart = str(found["chart"])
    assert [chart.count(f'id="ev-ev-1-{i}"') for i in range(3)] == [1, 1, 0]
    for name in ("last good (night 0)", "first bad (night 1)", "latest (night 2)"):
        assert f'"name":"{name}"' in chart
    assert '"text":["regression at c=4"]' in chart
    assert '"text":["regression at c=16"]' in chart


def test_an_event_whose_runs_the_store_lacks_has_no_diff_chart_nor_compare_page(
    tmp_path: Path,
) -> None:
    gone = event(first_bad_run="r-gone", last_good_run=None)
    found = section(small_store(tmp_path), context(), Confirmations(), gone, [], {})
    assert (found["diff"], found["chart"], found["compare"]) == ([], "", None)
    assert (found["first_bad"], found["last_good"], found["latest"]) == ("r-gone", "-", "-")


def test_the_issue_and_the_triage_mark_of_the_event(tmp_path: Path) -> None:
    url = "https://github.com/example/sglang-ci/issues/12"
    issue = Tracked(event="ev-1", number=12, url=url, open=False, action="closed")
    mark = Mark(event="ev-1", issue=12, state="invalid", reason="infra", note="a bad node",
                by="alice", at="2026-11-03T09:00:00Z", source="comment")  # fmt: skip
    confirmed = Confirmations(issues={"ev-1": (R2, issue)}, marks={"ev-1": mark})
    found = section(small_store(tmp_path), context(), confirmed, event(), [R1], {}, root="../")
    assert found["issue"] == {"text": "#12", "url": url, "state": "closed", "action": "closed",
                              "run": '<a href="https://example.com/r2">night 2</a>'}  # fmt: skip
    assert found["triage"] == "invalid (infra) by alice on 2026-11-03: a bad node"
    assert (found["page"], found["own"]) == ("../config/ds-fp8-tp8.html", "../event/ev-1.html")
    assert found["compare"] == f"../compare/{R0}--{R1}.html"
    unnumbered = Tracked(event="ev-1", number=None, url=None, open=True, action=None)
    confirmed = Confirmations(issues={"ev-1": (R2, unnumbered)})
    found = section(small_store(tmp_path / "b"), context(), confirmed, event(), [R1], {})
    assert found["issue"] is not None
    assert (found["issue"]["text"], found["issue"]["state"]) == ("issue", "open")


def test_without_moves_or_differences_the_changes_are_the_events_own(tmp_path: Path) -> None:
    bare = event(moves=(), differences=())
    found = section(small_store(tmp_path), context(), Confirmations(), bare, [R1], {})
    assert found["changes"] == (("old", "text"),)
