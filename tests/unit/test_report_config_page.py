"""A config's page (generator/report/config_page.py): per pair the latest curve beside the
last good run of the newest confirmed event (else the newest suspicion, else the previous
run) and the trends, each event's first bad run a labelled line."""

from __future__ import annotations

import re

from generator.report.config_page import config_page
from generator.report.timeline import Judged
from tests.unit.test_report_event_section import CONFIG, R1, R2, TITLES, event, small_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.results.shown_verdicts import ShownEvent


def page(tmp_path: Path, *runs: tuple[str, tuple[ShownEvent, ...]]) -> str:
    marks = {run: Judged(run=run, outcome="fail", points=(), curves=(), events=events)
             for run, events in runs}  # fmt: skip
    rel = config_page(small_store(tmp_path), tmp_path, CONFIG, "DS-FP8", marks, TITLES)
    assert rel == "config/ds-fp8-tp8.html"
    return (tmp_path / rel).read_text()


def curves(text: str) -> list[str]:
    """The names of the curves on the page (the earlier run's, the latest's), each pair."""
    return re.findall(r'"name":"((?:latest|last good|previous run)[^"]*)"', text)


def first_bad(text: str) -> list[str]:
    return sorted(set(re.findall(r'"text":"(first bad[^"]+)"', text)))


def test_per_pair_the_curve_and_the_trends(tmp_path: Path) -> None:
    text = page(tmp_path)
    assert "<title>DS-FP8</title>" in text
    assert "<p><code>ds-fp8-tp8</code></p>" in text
    assert re.findall(r'"title":\{"text":"([^"]+)","font"', text) == [
        f"{pair}: {what}"
        for pair in ("1024x1024", "8192x1024")
        for what in (
            "throughput per GPU vs interactivity", "output throughput per GPU, % of baseline",
            "median TTFT, % of baseline", "median TPOT, % of baseline",
        )
    ]  # fmt: skip
    # without an event the latest run reads against the run before it
    assert curves(text) == ["previous run (night 1)", "latest (night 2)"] * 2
    assert first_bad(text) == []


def test_the_last_good_run_of_a_confirmed_event_and_its_first_bad_line(tmp_path: Path) -> None:
    text = page(tmp_path, (R1, (event(),)))
    assert curves(text) == ["last good (night 0)", "latest (night 2)"] * 2
    # escaped for plotly's label, a line per change
    assert first_bad(text) == ["first bad: night 1\\u003cbr\\u003eSGLang 0.5.6 -&gt; 0.5.7"]


def test_a_confirmed_event_wins_over_a_newer_suspicion(tmp_path: Path) -> None:
    newer = event(id="ev-2", verdict="suspected", first_bad_run=R2, last_good_run=R1,
                  differences=())  # fmt: skip
    text = page(tmp_path, (R1, (event(),)), (R2, (newer,)))
    assert curves(text) == ["last good (night 0)", "latest (night 2)"] * 2
    assert first_bad(text) == [
        "first bad: night 1\\u003cbr\\u003eSGLang 0.5.6 -&gt; 0.5.7", "first bad: night 2",
    ]  # fmt: skip
    text = page(tmp_path / "alone", (R2, (newer,)))
    assert curves(text) == ["last good (night 1)", "latest (night 2)"] * 2


def test_an_event_cleared_by_its_newest_run_or_of_another_config_is_left_out(
    tmp_path: Path,
) -> None:
    suspected = event(verdict="suspected")
    cleared = event(verdict="cleared")
    other = event(id="ev-o", config="ds-mtp")
    text = page(tmp_path, (R1, (suspected, other)), (R2, (cleared,)))
    assert curves(text) == ["previous run (night 1)", "latest (night 2)"] * 2
    assert first_bad(text) == []


def test_a_last_good_run_outside_the_history_reads_against_the_previous_run(
    tmp_path: Path,
) -> None:
    text = page(tmp_path, (R1, (event(last_good_run="r-gone"),)))
    assert curves(text) == ["previous run (night 1)", "latest (night 2)"] * 2
    assert len(first_bad(text)) == 1  # the event is still drawn


def test_a_config_without_runs_is_an_empty_page(tmp_path: Path) -> None:
    rel = config_page(small_store(tmp_path), tmp_path, "no-such", "None", {}, {})
    assert rel == "config/no-such.html"
    assert '<p><code>no-such</code></p><div class="grid"></div>' in (tmp_path / rel).read_text()
