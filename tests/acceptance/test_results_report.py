"""`sglang-ci results report`: the static site, and the site in headless Chromium."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from generator.cli import main
from generator.results.output import MARKER
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


def test_report_out_dot_in_a_git_checkout_refuses_and_deletes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = build(tmp_path)
    repo = tmp_path / "checkout"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("mine\n")
    (repo / "docs").mkdir()
    (repo / "docs" / "x.md").write_text("x\n")
    before = sorted(str(p.relative_to(repo)) for p in repo.rglob("*"))
    monkeypatch.chdir(repo)
    for out in (".", "docs"):
        result = CliRunner().invoke(
            main,
            ["--root", str(tmp_path), "results", "report", "--history", "../history", "--out", out],
            catch_exceptions=False,
        )
        assert result.exit_code == 2
        assert result.stderr == (
            f"error: {out}: is not empty and was not made by results report "
            "(no .sglang-ci-output.json); choose a new directory\n"
        )
    assert sorted(str(p.relative_to(repo)) for p in repo.rglob("*")) == before
    assert site.is_dir()


def test_report_out_on_a_site_it_built_replaces_it_and_touches_nothing_else(
    tmp_path: Path,
) -> None:
    site = build(tmp_path)
    (tmp_path / "beside.txt").write_text("beside\n")
    (site / "index.html").write_text("stale")
    around = sorted(p.name for p in tmp_path.iterdir())
    build(tmp_path)
    assert "Latest run" in (site / "index.html").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == around
    assert (tmp_path / "beside.txt").read_text() == "beside\n"
    listed = json.loads((site / ".sglang-ci-output.json").read_text())["files"]
    assert listed == sorted(
        str(p.relative_to(site)) for p in site.rglob("*") if p.is_file() and p.name != MARKER
    )
