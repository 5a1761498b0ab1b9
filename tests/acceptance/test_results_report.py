"""`sglang-ci results report`: the static site, and the site in headless Chromium."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from tests.browser.chromium import charts, chromium, errors, skipped
from tests.results_gen import Run, Shape, case_record, point_record, sweep, write_run

MTP = sweep("ds-mtp", concurrencies=(4, 16, 64), spec="mtp", draft_tokens=3)
POINTS = sweep(concurrencies=(4, 16, 64, 128)) + MTP


def build(tmp_path: Path, *, with_current: bool = True) -> Path:
    rng = random.Random(3)
    for day in range(5):
        run = Run(day=day, image="rocm/sgl-dev:nightly" if day < 3 else "rocm/sgl-dev:v0.5.7")
        records = [point_record(run, p, Shape(noise=0.02), rng) for p in POINTS]
        records += [
            case_record(run, score=0.95 + day / 200),
            case_record(run, "gsm8k-mtp", spec="mtp", draft_tokens=3, accept_length=2.5),
        ]
        write_run(tmp_path / "history", run, records)
    args = [
        "--root",
        str(tmp_path),
        "results",
        "report",
        "--history",
        str(tmp_path / "history"),
        "--out",
        str(tmp_path / "site"),
    ]
    if with_current:
        run = Run(day=5, image="rocm/sgl-dev:v0.5.7")
        current = [
            point_record(run, p, Shape(throughput=0.6 if p == POINTS[1] else 1.0)) for p in POINTS
        ]
        write_run(tmp_path, run, [*current, case_record(run, score=0.96)], name="run")
        args += ["--current", str(tmp_path / "run")]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"report: 4 pages in {tmp_path / 'site'}\n"
    return tmp_path / "site"


def test_the_site_loads_plotly_once_from_itself(tmp_path: Path) -> None:
    site = build(tmp_path)
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    assert pages == ["accuracy.html", "config/ds-fp8-tp8.html", "config/ds-mtp.html", "index.html"]
    assert [p.name for p in site.rglob("*.js")] == ["plotly.min.js"]
    assert (site / "config/ds-mtp.html").read_text().count('<script src="../plotly.min.js">') == 1
    for page in site.rglob("*.html"):
        assert "cdn" not in page.read_text().lower()
    index = (site / "index.html").read_text()
    assert (
        '<a href="https://github.com/example/sglang-ci/actions/runs/7005">workflow run</a>' in index
    )
    assert '<tr class="regression"><td>regression</td>' in index


def test_without_a_current_run_the_newest_history_run_is_the_latest(tmp_path: Path) -> None:
    site = build(tmp_path, with_current=False)
    assert "Latest run: <b>2026-11-05T02-00-00Z-7004</b>" in (site / "index.html").read_text()


def test_headless_chromium_draws_every_chart_without_errors(tmp_path: Path) -> None:
    if skipped():
        pytest.skip("SGLANG_CI_NO_BROWSER=1")
    site = build(tmp_path)
    expected = {
        # curve (band low, band high, median, latest), throughput trend (a trace per
        # concurrency and the image change), acceptance trend for MTP
        "config/ds-fp8-tp8.html": [4, 5],
        "config/ds-mtp.html": [4, 4, 4],
        "accuracy.html": [2, 2],
        "index.html": [],
    }
    with chromium(tmp_path / "profile") as browser:
        for page, traces in expected.items():
            browser.get((site / page).as_uri())
            drawn = charts(browser)
            assert [len(c["traces"]) for c in drawn] == traces, page
            empty = [(c["id"], t["name"]) for c in drawn for t in c["traces"] if t["points"] == 0]
            assert empty == [], page
            assert errors(browser) == [], page
        browser.get((site / "config/ds-mtp.html").as_uri())
        shot = tmp_path / "ds-mtp.png"
        assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
