"""The dashboard's regressions page (generator/report/regressions.py): each event once,
confirmed before suspected and the largest first, the cleared ones folded at the end, the
ones past EVENTS_SHOWN a table row; each shown event a page of its own and its pair of
runs a compare page."""

from __future__ import annotations

import re

from generator.report import regressions
from generator.report.confirmations import Confirmations
from generator.report.timeline import Judged
from generator.results.shown_verdicts import Move
from tests.unit.test_report_event_section import R0, R1, R2, context, event, small_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from generator.results.shown_verdicts import ShownEvent

TPUT = "output_throughput_per_gpu"


def moved(change: float, metric: str = TPUT) -> tuple[Move, ...]:
    return (Move(metric=metric, change=change, low=None, high=None),)


def marks(*runs: tuple[str, tuple[ShownEvent, ...]]) -> dict[str, Judged]:
    return {run: Judged(run=run, outcome="fail", points=(), curves=(), events=events)
            for run, events in runs}  # fmt: skip


def sections(text: str) -> list[tuple[str, str]]:
    return re.findall(r'<section class="event (\w+)" id="([\w-]+)">', text)


SMALL = event(id="ev-small", verdict="suspected", moves=moved(-0.06))
LARGE = event(id="ev-large", verdict="suspected", moves=moved(-0.3))
CONFIRMED = event(id="ev-reg", moves=moved(-0.05))
CLEARED = event(id="ev-clr", verdict="cleared", moves=moved(-0.4))
# a TTFT change, however large, weighs after a throughput change of the same event
TTFT = event(id="ev-ttft", verdict="suspected", moves=(*moved(0.9, "median_ttft_ms"), *moved(-0.1)))


def test_confirmed_first_then_the_largest_change_and_cleared_folded(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    ctx = context(marks=marks((R1, (SMALL, CLEARED, CONFIRMED)), (R2, (LARGE, TTFT))))
    assert regressions.page(store, tmp_path / "site", ctx, Confirmations()) == 5
    text = (tmp_path / "site" / "regressions.html").read_text()
    assert sections(text) == [
        ("regression", "ev-reg"), ("suspected", "ev-large"), ("suspected", "ev-ttft"),
        ("suspected", "ev-small"), ("cleared", "ev-clr"),
    ]  # fmt: skip
    assert '<details class="cleared"><summary>1 suspicion(s) the A/B cleared</summary>' in text
    assert text.index("<details") < text.index('id="ev-clr"')
    assert "Older events" not in text
    pages = sorted(p.relative_to(tmp_path / "site").as_posix()
                   for p in (tmp_path / "site").rglob("*.html"))  # fmt: skip
    assert pages == [
        f"compare/{R0}--{R1}.html", "event/ev-clr.html", "event/ev-large.html",
        "event/ev-reg.html", "event/ev-small.html", "event/ev-ttft.html", "regressions.html",
    ]  # fmt: skip
    own = (tmp_path / "site" / "event" / "ev-reg.html").read_text()
    assert "<title>regression: DS-FP8 (ev-reg)</title>" in own
    assert '<a href="../config/ds-fp8-tp8.html">DS-FP8</a>' in own


def test_an_event_is_shown_as_its_newest_run_has_it_with_every_run_that_reported_it(
    tmp_path: Path,
) -> None:
    later = event(id="ev-large", verdict="regression", moves=moved(-0.3))
    ctx = context(marks=marks((R2, (later,)), (R0, (LARGE,)), (R1, (LARGE,))))
    assert regressions.page(small_store(tmp_path), tmp_path, ctx, Confirmations()) == 1
    text = (tmp_path / "regressions.html").read_text()
    assert sections(text) == [("regression", "ev-large")]
    # reported by night 2, then night 1 and night 0: the runs newest first
    assert re.search(r"night 2</a>, night 1, night 0", text)


def test_past_events_shown_a_row_each_and_no_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(regressions, "EVENTS_SHOWN", 1)
    ctx = context(marks=marks((R1, (SMALL, CONFIRMED))))
    assert regressions.page(small_store(tmp_path), tmp_path, ctx, Confirmations()) == 2
    text = (tmp_path / "regressions.html").read_text()
    assert sections(text) == [("regression", "ev-reg")]
    assert (
        '<tr class="suspected"><td>suspected</td><td><a href="config/ds-fp8-tp8.html">DS-FP8'
        "</a></td><td><code>ev-small</code></td>\n<td>night 1</td><td>night 0</td>"
        "<td>1024x1024 c=4</td></tr>"
    ) in text
    assert not (tmp_path / "event" / "ev-small.html").exists()


def test_without_an_event_the_page_says_so(tmp_path: Path) -> None:
    assert regressions.page(small_store(tmp_path), tmp_path, context(), Confirmations()) == 0
    assert "<p>No event.</p>" in (tmp_path / "regressions.html").read_text()
    assert [p.name for p in tmp_path.rglob("*.html")] == ["regressions.html"]
