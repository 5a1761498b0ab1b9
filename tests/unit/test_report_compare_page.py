"""A compare page (generator/report/compare_page.py): two runs side by side, a chart per
config and pair with both curves, the runs linked by their titles."""

from __future__ import annotations

import re

from generator.report.compare_page import compare_page
from generator.report.rundiff import page_name
from tests.unit.test_report_event_section import R0, R2, context, small_store

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path


def test_one_chart_per_config_and_pair_with_both_runs(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    compare_page(store, tmp_path / "site", context(), R0, R2)
    text = (tmp_path / "site" / page_name(R0, R2)).read_text()
    assert "<title>night 0 against night 2</title>" in text
    assert '<script src="../plotly.min.js"></script>' in text
    assert f'A: night 0 <code>{R0}</code><br>B: <a href="https://example.com/r2">night 2</a>' in (
        text
    )
    titles = re.findall(r'"title":\{"text":"([^"]+)","font"', text)
    assert titles == [
        "DS-FP8 1024x1024: throughput per GPU vs interactivity",
        "DS-FP8 8192x1024: throughput per GPU vs interactivity",
        "ds-mtp 1024x1024: throughput per GPU vs interactivity",  # no display name known
    ]
    assert text.count('"name":"A night 0"') == 3
    assert text.count('"name":"B night 2"') == 3
    assert [text.count(f'id="pair-{i}"') for i in range(4)] == [1, 1, 1, 0]
    assert "<h2>DS-FP8 <code>ds-fp8-tp8</code></h2>" in text


def test_a_run_the_store_lacks_has_no_curve(tmp_path: Path) -> None:
    store = small_store(tmp_path, days=1)
    compare_page(store, tmp_path, context(), R0, "r-gone")
    text = (tmp_path / page_name(R0, "r-gone")).read_text()
    assert text.count('"name":"A night 0"') == 3
    assert '"name":"B r-gone"' not in text
    assert f"<h2>DS-FP8 <code>ds-fp8-tp8</code> (only in {R0})</h2>" in text
