"""`sglang-ci results report`: the static site, and the site in headless Chromium."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from selenium.webdriver.common.by import By

from generator.cli import main
from generator.results.output import MARKER
from tests.browser.chromium import charts, chromium, errors, skipped
from tests.helpers import FIXTURE
from tests.results_gen import Run, Shape, case_record, point_record, sweep, write_run

MTP = sweep("ds-mtp", concurrencies=(4, 16, 64), spec="mtp", draft_tokens=3)
POINTS = sweep(concurrencies=(4, 16, 64, 128)) + MTP
DROP = POINTS[1]  # ds-fp8-tp8, 1024x1024, concurrency 16
GITHUB = {
    "GITHUB_WORKFLOW": "Benchmark",
    "GITHUB_REPOSITORY": "example/sglang-ci",
    "GITHUB_RUN_ATTEMPT": "1",
}


def cli(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """`sglang-ci results ARGS`; admit reads the fixture catalogs' image repositories."""
    root = FIXTURE if args[0] == "admit" else tmp_path
    return CliRunner(env=env).invoke(
        main, ["--root", str(root), "results", *args], catch_exceptions=False
    )


def records(day: int, drop: bool = False) -> list[dict[str, Any]]:
    """A run's records; from day 3 on a new image digest with SGLang 0.5.7."""
    rng = random.Random(day)
    run = Run(day=day, image="rocm/sgl-dev:nightly")
    out = [
        point_record(run, p, Shape(throughput=0.6 if drop and p == DROP else 1.0, noise=0.02), rng)
        for p in POINTS
    ]
    out += [
        case_record(run, score=0.95 + day / 200),
        case_record(run, "gsm8k-mtp", spec="mtp", draft_tokens=3, accept_length=2.5),
    ]
    for record in out:
        record["provenance"]["image"]["digest"] = "sha256:" + ("aa" if day < 3 else "bb") * 32
        record["provenance"]["sglang_version"] = "0.5.6" if day < 3 else "0.5.7"
        record["provenance"]["github"]["workflow"] = "Benchmark"
    return out


def admitted(tmp_path: Path, day: int, drop: bool = False) -> None:
    """Run `day` judged against the history and admitted into it, as the summary and
    history jobs do."""
    history = tmp_path / "history"
    new = write_run(tmp_path / f"new{day}", Run(day=day), records(day, drop), name="run")
    verdicts = tmp_path / f"new{day}" / "verdicts.json"
    where = ["--history", str(history), "--current", str(new)]
    cli(tmp_path, "compare", *where, "--json", "--out", str(verdicts))
    env = {**GITHUB, "GITHUB_RUN_ID": str(7000 + day), "GITHUB_RUN_NUMBER": str(day)}
    name = Run(day=day).name
    done = cli(
        tmp_path,
        "admit",
        str(new),
        "--history",
        str(history),
        "--name",
        name,
        "--verdicts",
        str(verdicts),
        env=env,
    )
    assert done.exit_code == 0, done.output


def build(tmp_path: Path, *, with_current: bool = True) -> Path:
    """Days 0-4 in the earlier layout (records only); day 5, 40% lower at DROP, and day 6
    judged and admitted; with_current: day 7 as --current, judged by report itself."""
    if not (tmp_path / "history").exists():
        for day in range(5):
            write_run(tmp_path / "history", Run(day=day), records(day))
        admitted(tmp_path, 5, drop=True)
        admitted(tmp_path, 6)
    args = ["report", "--history", str(tmp_path / "history"), "--out", str(tmp_path / "site")]
    if with_current:
        if not (tmp_path / "run").exists():
            write_run(tmp_path, Run(day=7), records(7, drop=True), name="run")
        args += ["--current", str(tmp_path / "run")]
    result = cli(tmp_path, *args)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"report: 5 pages in {tmp_path / 'site'}\n"
    return tmp_path / "site"


def test_the_site_loads_plotly_once_from_itself(tmp_path: Path) -> None:
    site = build(tmp_path)
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    assert pages == [
        "accuracy.html",
        "config/ds-fp8-tp8.html",
        "config/ds-mtp.html",
        "index.html",
        "regressions.html",
    ]
    assert [p.name for p in site.rglob("*.js")] == ["plotly.min.js"]
    assert (site / "config/ds-mtp.html").read_text().count('<script src="../plotly.min.js">') == 1
    for page in site.rglob("*.html"):
        assert "cdn" not in page.read_text().lower()
    index = (site / "index.html").read_text()
    assert '<tr class="regression"><td>regression</td><td>DS-FP8-TP8</td>' in index
    assert "<td>1024x1024</td><td>16</td><td>tok/s/GPU</td><td>-4" in index
    assert (
        '<a href="https://github.com/example/sglang-ci/actions/runs/7006">Benchmark #6</a>' in index
    )
    assert "<title>DS-FP8-TP8</title>" in (site / "config/ds-fp8-tp8.html").read_text()


def test_without_a_current_run_the_newest_history_run_is_the_latest(tmp_path: Path) -> None:
    site = build(tmp_path, with_current=False)
    index = (site / "index.html").read_text()
    assert (
        '<a href="https://github.com/example/sglang-ci/actions/runs/7006">Benchmark #6</a>' in index
    )
    assert '(2026-11-07T02-00-00Z-7006): <b class="pass">pass</b>' in index


def test_headless_chromium_shows_digests_versions_latency_charts_and_marks(
    tmp_path: Path,
) -> None:
    if skipped():
        pytest.skip("SGLANG_CI_NO_BROWSER=1")
    site = build(tmp_path)
    with chromium(tmp_path / "profile") as browser:
        browser.get((site / "index.html").as_uri())
        digests = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "td.digest")]
        # 8 runs (days 0-7), each one image: its short digest on the page
        assert digests == ["sha256:bbbbbbbbbbbb"] * 5 + ["sha256:aaaaaaaaaaaa"] * 3
        rows = browser.find_element(By.CSS_SELECTOR, "table.runs").text
        assert rows.count("0.5.7") == 5 and rows.count("0.5.6") == 3
        assert errors(browser) == []
        browser.get((site / "config/ds-fp8-tp8.html").as_uri())
        drawn = charts(browser)
        titles = [c["title"] for c in drawn]
        assert titles[0].startswith(
            "1024x1024: throughput per GPU vs interactivity (curve regression -"
        )
        assert titles[1:] == [
            "1024x1024: output throughput per GPU",
            "1024x1024: median TTFT",
            "1024x1024: median TPOT",
        ]
        days = ["2026-11-06T02:00:00Z", "2026-11-08T02:00:00Z"]  # day 5 and the current run
        for chart in drawn:
            marked = next(t for t in chart["traces"] if t["name"] == "regression")
            points = [
                (x, text)
                for x, text in zip(marked["x"], marked["text"], strict=True)
                if text.startswith("regression at c=16")
            ]
            if chart is drawn[0]:
                assert len(points) == 1, chart["title"]  # the latest run's curve
            else:
                assert [x for x, _ in points] == days, chart["title"]
        trend = drawn[1]
        assert [t["name"] for t in trend["traces"]][:4] == ["c=4", "c=16", "c=64", "c=128"]
        assert [t["points"] for t in trend["traces"]][:4] == [8, 8, 8, 8]
        marked = next(t for t in trend["traces"] if t["name"] == "regression")
        assert [text.split(":")[0] for text in marked["text"]] == [
            "regression at c=16 (Benchmark #5)",
            "curve regression (Benchmark #5)",
            "regression at c=16 (Benchmark run 7007)",
            "curve regression (Benchmark run 7007)",
        ]
        change = next(t for t in trend["traces"] if t["name"] == "image or version changed")
        assert change["text"] == [
            "image sha256:aaaaaaaaaaaa -> sha256:bbbbbbbbbbbb; SGLang 0.5.6 -> 0.5.7"
        ]
        curve = drawn[0]
        assert [t["name"] for t in curve["traces"]][:2] == [
            "before the last image change (Benchmark run 7002)",
            "latest (Benchmark run 7007)",
        ]
        assert curve["traces"][1]["text"] == ["c=128", "c=64", "c=16", "c=4"]
        assert errors(browser) == []
        browser.get((site / "config/ds-mtp.html").as_uri())
        mtp = charts(browser)
        assert [len(c["traces"]) for c in mtp] == [2, 4, 4, 4, 4]  # 3 concurrencies, a change
        assert "regression" not in str(mtp)
        shot = tmp_path / "ds-fp8-tp8.png"
        browser.get((site / "config/ds-fp8-tp8.html").as_uri())
        assert browser.save_screenshot(str(shot))
        browser.get((site / "regressions.html").as_uri())
        events = browser.find_elements(By.CSS_SELECTOR, "section.event")
        assert [e.get_attribute("id") for e in events] == [
            "ds-fp8-tp8-run",
            "ds-fp8-tp8-2026-11-06T02-00-00Z-7005",
        ]
        assert errors(browser) == []
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
