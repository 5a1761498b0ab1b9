"""`results report`'s site (generator/report/dashboard.py): plotly written once beside the
pages, the index led by the latest run and its verdicts, a page per config, the accuracy
trends, the regressions page."""

from __future__ import annotations

import re
from typing import cast

from generator.report.dashboard import Latest, report
from generator.report.site import PLOTLY_JS
from generator.results.load import open_store
from tests import results_gen as gen
from tests.unit.test_report_event_section import R2

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from generator.results.store import Store
    from generator.results.verdicts_json import VerdictsDoc

TPUT = "output_throughput_per_gpu"
VERDICTS = cast("VerdictsDoc", {
    "schema": "sglang-ci/verdicts/2", "outcome": "fail", "reason": "a regression",
    "current": R2, "events": [],
    "points": [{"config": "ds-fp8-tp8", "isl": 1024, "osl": 1024, "concurrency": 4,
                "verdict": "regression",
                "metrics": {TPUT: {"metric": TPUT, "verdict": "regression", "change": -0.2}}}],
})  # fmt: skip


def store_of(tmp_path: Path, cases: bool) -> Store:
    """Three nights of ds-fp8-tp8 at c=4 and 16; with `cases`, two accuracy cases."""
    runs = gen.history(tmp_path / "history", gen.sweep(concurrencies=(4, 16)), 3, noise=0.0)
    for run in runs if cases else ():
        records = [gen.case_record(run, "gsm8k", score=0.9 + run.day / 100),
                   gen.case_record(run, "aime", score=0.5, threshold=0.4)]  # fmt: skip
        gen.write_run(tmp_path / "history", run, records)
    return open_store(history=tmp_path / "history")


def site(tmp_path: Path, latest: Latest, cases: bool = True) -> tuple[Path, int]:
    out = tmp_path / "site"
    out.mkdir()
    warned: list[str] = []
    pages = report(store_of(tmp_path, cases), latest, out, warned.append)
    assert warned == []
    return out, pages


def test_the_site_is_its_pages_and_plotly_once(tmp_path: Path) -> None:
    latest = Latest(name=R2, title="night 2", url="https://example.com/r2", verdicts=VERDICTS)
    out, pages = site(tmp_path, latest)
    assert pages == 4
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        "accuracy.html", "config", "config/ds-fp8-tp8.html", "index.html", PLOTLY_JS,
        "regressions.html",
    ]  # fmt: skip
    assert (out / PLOTLY_JS).stat().st_size > 1_000_000
    index = (out / "index.html").read_text()
    assert (
        '<p>Latest run: <b><a href="https://example.com/r2">night 2</a></b>\n'
        f'({R2}): <b class="fail">fail</b>: a regression.</p>'
    ) in index
    assert '<p class="headline fail">' in index
    assert '<li><a href="config/ds-fp8-tp8.html">DS-FP8-TP8</a> <code>ds-fp8-tp8</code></li>' in (
        index
    )
    assert (
        '<tr class="regression"><td>regression</td><td>DS-FP8-TP8</td>\n'
        "<td>1024x1024</td><td>4</td><td>tok/s/GPU</td><td>-20.0%</td>"
    ) in index
    assert index.count('<div id="heat-0"') == 1


def test_a_latest_run_not_judged_says_so_and_no_case_no_accuracy_chart(tmp_path: Path) -> None:
    out, _ = site(tmp_path, Latest(name=R2, title="night 2", url=None, verdicts=None), cases=False)
    index = (out / "index.html").read_text()
    assert f'<p>Latest run: <b>night 2</b>\n({R2}): <b class="not judged">not judged</b>.</p>' in (
        index
    )
    assert '<p class="headline' not in index
    assert '<tr class="regression">' not in index
    assert "<p>No accuracy case in these runs.</p>" in (out / "accuracy.html").read_text()


def test_the_accuracy_page_has_a_chart_per_case_by_name(tmp_path: Path) -> None:
    out, _ = site(tmp_path, Latest(name=R2, title="", url=None, verdicts=None))
    text = (out / "accuracy.html").read_text()
    assert "<title>Accuracy trends</title>" in text
    assert re.findall(r'"title":\{"text":"([^"]+)","font"', text) == ["aime", "gsm8k"]
    assert '"y":[0.4,0.4,0.4],"mode":"lines"' in text  # aime's threshold
