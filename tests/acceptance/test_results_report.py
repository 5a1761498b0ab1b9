"""`sglang-ci results report`: the static site, and the site in headless Chromium."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
from typing import Any

import pytest
from click.testing import CliRunner, Result
from selenium.webdriver.common.by import By

from generator.cli.sglang_ci import main
from generator.confirm import tracked
from generator.confirm.tracked import Tracked
from generator.report import regressions
from generator.results.history import PointKey, ServerKey
from generator.results.output_dirs import MARKER
from generator.verdicts.model import event_id
from tests import confirm_gen as cg
from tests.browser.chromium import charts, chromium, errors, skipped
from tests.helpers import FIXTURE, ROOT
from tests.launchers.support import fixture_job
from tests.results_gen import Run, Shape, case_record, point_record, sweep, write_run

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from selenium.webdriver.remote.webdriver import WebDriver

# SGLANG_CI_SCREENSHOTS=1: the browser test writes docs/screenshots/ anew.
SCREENSHOTS = "SGLANG_CI_SCREENSHOTS"

MTP = sweep("ds-mtp", concurrencies=(4, 16, 64), spec="mtp", draft_tokens=3)
POINTS = sweep(concurrencies=(4, 16, 64, 128)) + MTP
DROP = POINTS[1:3]  # ds-fp8-tp8, 1024x1024, concurrencies 16 and 64: two neighbours
CLEAN = 9  # days 0-8 in the earlier layout; day 9, 40% lower at DROP, confirmed by its A/B
SERVER = ServerKey(
    config="ds-fp8-tp8", fingerprint="fp-ds-fp8-tp8", runner_label="mi355-8gpu",
    image_family="rocm/sgl-dev",
)  # fmt: skip
EVENT = event_id(SERVER, Run(day=CLEAN).run_id)  # compare's id of day 9's drop
C64_EVENT = event_id(SERVER, "7011", PointKey(isl=1024, osl=1024, concurrency=64))
ISSUE = "https://github.com/example/sglang-ci/issues/12"
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


def digest(day: int) -> str:
    return "sha256:" + ("aa" if day < 3 else "bb" if day < CLEAN else "cc") * 32


def made_by(record: dict[str, Any], day: int) -> dict[str, Any]:
    """`record` as the image of `day` made it: a new digest and SGLang 0.5.7 from day 3
    on, another with SGLang 0.5.8 and a new ATOM commit from day 9 on."""
    prov = record["provenance"]
    prov["image"]["digest"] = digest(day)
    prov["image"]["pinned"] = f"rocm/sgl-dev@{digest(day)}"
    prov["sglang_version"] = "0.5.6" if day < 3 else "0.5.7" if day < CLEAN else "0.5.8"
    prov["sglang_commit"] = "0f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4" if day >= CLEAN else None
    prov["atom_version"] = "0.1.3.dev7+g5e6f7a8b" if day >= CLEAN else "0.1.2.dev3+g1a2b3c4d"
    prov["aiter_version"] = "0.1.5"
    prov["github"]["workflow"] = "Benchmark"
    return record


def records(day: int, drop: bool = False) -> list[dict[str, Any]]:
    """A run's records (see made_by for their images)."""
    rng = random.Random(day)
    run = Run(day=day, image="rocm/sgl-dev:nightly")
    out = [
        point_record(run, p, Shape(throughput=0.6 if drop and p in DROP else 1.0, noise=0.02), rng)
        for p in POINTS
    ]
    out += [
        case_record(run, score=0.95 + day / 200),
        case_record(run, "gsm8k-mtp", spec="mtp", draft_tokens=3, accept_length=2.5),
    ]
    return [made_by(record, day) for record in out]


def side(day: int) -> dict[str, Any]:
    """The image of `day` as an A/B names it."""
    return {
        "image": f"rocm/sgl-dev@{digest(day)}",
        "image_requested": "rocm/sgl-dev:nightly",
        "image_tag": "nightly",
        "image_digest": digest(day),
        "run": Run(day=day).name,
    }


def confirmation(parent: Path) -> Path:
    """What the events job leaves in the confirmation folder of day 9 (40% lower at c=16,
    3% at c=64): the A/B of day 8's image against day 9's, three repeats, the matrix it ran
    from, and the issue `confirm issues` opened."""
    job = fixture_job("--preset", "all-qwen")
    point = job["points"][0]
    job.update(
        id="ds-fp8-tp8-1024x1024",
        config="ds-fp8-tp8",
        points=[
            {**point, "id": p.point_id, "isl": 1024, "osl": 1024, "concurrency": p.concurrency}
            for p in DROP
        ],
    )
    entry = cg.ab_entry(job, EVENT, side(CLEAN - 1), side(CLEAN))

    def measured(turn: str, p: dict[str, Any], _repeat: int) -> dict[str, Any]:
        day = CLEAN - 1 if turn == "A" else CLEAN
        lower = 1.0 if turn == "A" else 0.6 if p["concurrency"] == DROP[0].concurrency else 0.97
        at = next(x for x in POINTS if x.concurrency == p["concurrency"])
        record = point_record(Run(day=day), at, Shape(throughput=lower))
        return made_by(record, day)

    folder = parent / "confirmation"
    for rel, doc in {**cg.ab_documents(entry, measured)}.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(json.dumps(doc))
    (folder / "matrix.json").write_text(json.dumps({"include": [entry]}))
    opened = Tracked(event=EVENT, number=12, url=ISSUE, open=True, action="opened")
    issues = tracked.document(
        run="run", repository="example/sglang-ci", enabled=True, issues=[opened]
    )
    (folder / tracked.FILE).write_text(json.dumps(issues))
    return folder


def admitted(tmp_path: Path, day: int, drop: bool = False) -> None:
    """Run `day` judged against the history and admitted into it, as the summary and
    history jobs do; a drop with its A/B confirmation and tracking issue."""
    history = tmp_path / "history"
    new = write_run(tmp_path / f"new{day}", Run(day=day), records(day, drop), name="run")
    verdicts = tmp_path / f"new{day}" / "verdicts.json"
    where = ["--history", str(history), "--current", str(new)]
    cli(tmp_path, "compare", *where, "--json", "--out", str(verdicts))
    confirmed = []
    if drop:
        # The events job: compare again with the A/B's outcome (docs/confirmation.md).
        assert EVENT in [e["id"] for e in json.loads(verdicts.read_text())["events"]]
        folder = confirmation(tmp_path / f"new{day}")
        outcomes = folder / "results.json"
        outcomes.write_text(json.dumps([{"event": EVENT, "result": "confirmed"}]))
        verdicts.unlink()
        done = cli(tmp_path, "compare", *where, "--confirmation", str(outcomes), "--json",
                   "--out", str(verdicts))  # fmt: skip
        assert done.exit_code == 1, done.output
        confirmed = ["--confirmation", str(folder)]
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
        *confirmed,
        env=env,
    )
    assert done.exit_code == 0, done.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Made once for the module: `history`, days 0-8 in the earlier layout (records only),
    day 9, 40% lower at DROP (suspected, its A/B confirmed), and day 10 judged and admitted;
    `run`, day 11, lower again (a new suspicion). Each test reports from its own copy."""
    made = tmp_path_factory.mktemp("runs")
    for day in range(CLEAN):
        write_run(made / "history", Run(day=day), records(day))
    admitted(made, CLEAN, drop=True)
    admitted(made, CLEAN + 1)
    write_run(made, Run(day=CLEAN + 2), records(CLEAN + 2, drop=True), name="run")
    return made


def build(runs: Path, tmp_path: Path, *, with_current: bool = True) -> Path:
    """The report of the history of `runs` (copied under `tmp_path` the first time) into
    `tmp_path`/site; with_current: day 11 as --current, judged by report itself."""
    for name in ("history", "run"):
        if not (tmp_path / name).exists():
            shutil.copytree(runs / name, tmp_path / name)
    args = ["report", "--history", str(tmp_path / "history"), "--out", str(tmp_path / "site")]
    if with_current:
        args += ["--current", str(tmp_path / "run")]
    result = cli(tmp_path, *args)
    assert result.exit_code == 0, result.output
    pages = len(list((tmp_path / "site").rglob("*.html")))
    assert result.stdout == f"report: {pages} pages in {tmp_path / 'site'}\n"
    return tmp_path / "site"


def test_the_site_loads_plotly_once_from_itself(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(regressions, "EVENTS_SHOWN", 1)  # the older event: a table row
    site = build(runs, tmp_path)
    pages = sorted(str(p.relative_to(site)) for p in site.rglob("*.html"))
    assert pages == [
        "accuracy.html",
        f"compare/{Run(day=CLEAN - 1).name}--{Run(day=CLEAN).name}.html",
        "config/ds-fp8-tp8.html",
        "config/ds-mtp.html",
        f"event/{EVENT}.html",
        "index.html",
        "regressions.html",
    ]
    assert [p.name for p in site.rglob("*.js")] == ["plotly.min.js"]
    assert (site / "config/ds-mtp.html").read_text().count('<script src="../plotly.min.js">') == 1
    for page in site.rglob("*.html"):
        assert "cdn" not in page.read_text().lower()
    index = (site / "index.html").read_text()
    assert '<tr class="regression"><td>regression</td><td>DS-FP8-TP8</td>' in index
    assert "<td>1024x1024</td><td>16</td><td>tok/s/GPU</td><td>-39.8%</td>" in index
    assert (
        '<a href="https://github.com/example/sglang-ci/actions/runs/7010">Benchmark #10</a>'
        in index
    )
    assert "<title>DS-FP8-TP8</title>" in (site / "config/ds-fp8-tp8.html").read_text()
    events = (site / "regressions.html").read_text()
    assert events.count("<section ") == 1
    # day 9's event, confirmed by its A/B and still open; the other (the current run's
    # suspicion at c=64, which day 9's A/B found 3% lower and cleared, 24% lower tonight):
    # a table row
    assert f'<section class="event regression" id="{EVENT}">' in events
    assert f'<div id="ev-{EVENT}-0" class="plotly-graph-div"' in events
    assert (
        '<tr class="suspected"><td>suspected</td><td><a href="config/ds-fp8-tp8.html">'
        f"DS-FP8-TP8</a></td><td><code>{C64_EVENT}</code></td>\n"
        '<td><a href="https://github.com/example/sglang-ci/actions/runs/7011">Benchmark run '
        '7011</a></td><td><a href="https://github.com/example/sglang-ci/actions/runs/7008">'
        "Benchmark run 7008</a></td><td>1024x1024 c=64</td></tr>"
    ) in events


def test_without_a_current_run_the_newest_history_run_is_the_latest(
    runs: Path, tmp_path: Path
) -> None:
    site = build(runs, tmp_path, with_current=False)
    index = (site / "index.html").read_text()
    assert (
        '<a href="https://github.com/example/sglang-ci/actions/runs/7010">Benchmark #10</a>'
        in index
    )
    assert '(2026-11-11T02-00-00Z-7010): <b class="pass">pass</b>' in index


def test_headless_chromium_shows_digests_versions_latency_charts_and_marks(
    runs: Path, tmp_path: Path
) -> None:
    if skipped():
        pytest.skip("SGLANG_CI_NO_BROWSER=1")
    site = build(runs, tmp_path)
    pair_page = f"compare/{Run(day=CLEAN - 1).name}--{Run(day=CLEAN).name}.html"
    (tmp_path / "shots").mkdir()

    def shoot(browser: WebDriver, name: str) -> None:
        assert browser.save_screenshot(str(tmp_path / "shots" / f"{name}.png"))

    with chromium(tmp_path / "profile") as browser:
        browser.get((site / "index.html").as_uri())
        digests = [td.text for td in browser.find_elements(By.CSS_SELECTOR, "td.digest")]
        # 12 runs (days 0-11), each one image: its short digest on the page
        assert digests == [f"sha256:{x * 12}" for x in ("c" * 3 + "b" * 6 + "a" * 3)]
        rows = browser.find_element(By.CSS_SELECTOR, "table.runs").text
        assert [rows.count(f"0.5.{v}") for v in (8, 7, 6)] == [3, 6, 3]
        assert errors(browser) == []
        # The index: the latest run's headline, and the heatmap of configs and pairs by
        # runs, each cell the worst verdict of its points, the first row each run's outcome.
        assert browser.find_element(By.CSS_SELECTOR, "p.headline").text == (
            "green: 1 still open, 1 suspected"
        )
        [heat] = charts(browser)
        [cells] = heat["traces"]
        assert (heat["title"], cells["type"]) == ("The last 12 runs", "heatmap")
        assert cells["y"] == ["run outcome", "DS-FP8-TP8 1024x1024", "DS-MTP 1024x1024"]
        assert cells["z"] == [
            [None] * CLEAN + [2, 0, 0],  # days 0-8 not judged; day 9 failed
            [0] * CLEAN + [2, 0, 2],  # the drop on days 9 and 11
            [0] * (CLEAN + 3),  # the MTP config's one-night dip is suspected, not marked
        ]
        shoot(browser, "index")
        browser.get((site / "config/ds-fp8-tp8.html").as_uri())
        drawn = charts(browser)
        titles = [c["title"] for c in drawn]
        assert titles[0].startswith(
            "1024x1024: throughput per GPU vs interactivity (curve regression -"
        )
        assert titles[1:] == [
            "1024x1024: output throughput per GPU, % of baseline",
            "1024x1024: median TTFT, % of baseline",
            "1024x1024: median TPOT, % of baseline",
        ]
        first_bad = "2026-11-10T02:00:00Z"
        label = (
            "first bad: Benchmark #9<br>digest bbbbbbbbbbbb -&gt; cccccccccccc<br>SGLang 0.5.7 "
            "-&gt; 0.5.8<br>SGLang commit - -&gt; 0f1e2d3c<br>ATOM 0.1.2.dev3+g1a2b3c4d -&gt; "
            "0.1.3.dev7+g5e6f7a8b"
        )
        for chart in drawn[1:]:
            # Each event's first bad run, a labelled vertical line on every trend: day 9's
            # confirmed step and the current run's suspicion at c=64.
            assert chart["lines"] == [first_bad, "2026-11-12T02:00:00Z"], chart["title"]
            assert chart["notes"][0] == label, chart["title"]
            assert chart["notes"][1].startswith("first bad: Benchmark run 7011<br>digest "), chart[
                "title"
            ]
            # Each point as % of its baseline (its median before the first bad run).
            for trace in chart["traces"][:4]:
                before = trace["y"][:CLEAN]
                assert statistics.median(before) == pytest.approx(100.0), chart["title"]
        trend = drawn[1]
        assert [t["name"] for t in trend["traces"]][:4] == ["c=4", "c=16", "c=64", "c=128"]
        assert [t["points"] for t in trend["traces"]][:4] == [12, 12, 12, 12]
        # A step of 40% at c=16 and c=64 reads as 60% of baseline; c=4 stays at 100%.
        steps = {t["name"]: round(t["y"][CLEAN]) for t in trend["traces"][:4]}
        assert steps == {"c=4": 101, "c=16": 61, "c=64": 61, "c=128": 101}
        assert trend["traces"][1]["text"][CLEAN] == "61.5% of baseline (121.76 tok/s/GPU)"
        # Only what moved is marked: throughput at c=16 and c=64 (and the curve), on the
        # first bad run and the latest; neither TTFT nor TPOT.
        marked = next(t for t in trend["traces"] if t["name"] == "regression")
        assert [text.split(":")[0] for text in marked["text"]] == [
            "regression at c=16 (Benchmark #9)",
            "regression at c=64 (Benchmark #9)",
            "curve regression (Benchmark #9)",
            "regression at c=16 (Benchmark run 7011)",
            "regression at c=64 (Benchmark run 7011)",
            "curve regression (Benchmark run 7011)",
        ]
        for chart in drawn[2:]:
            assert not [t for t in chart["traces"] if t["name"] in ("regression", "suspected")]
        change = next(t for t in trend["traces"] if t["name"] == "image or version changed")
        assert change["text"] == [
            "image sha256:aaaaaaaaaaaa -> sha256:bbbbbbbbbbbb; SGLang 0.5.6 -> 0.5.7",
            (
                "image sha256:bbbbbbbbbbbb -> sha256:cccccccccccc; SGLang 0.5.7 -> 0.5.8; "
                "ATOM 0.1.2.dev3+g1a2b3c4d -> 0.1.3.dev7+g5e6f7a8b"
            ),
        ]
        # The curve: the event's last good run against the latest.
        curve = drawn[0]
        assert [t["name"] for t in curve["traces"]][:2] == [
            "last good (Benchmark run 7008)",
            "latest (Benchmark run 7011)",
        ]
        assert curve["traces"][1]["text"] == ["c=128", "c=64", "c=16", "c=4"]
        assert errors(browser) == []
        shoot(browser, "config")
        browser.get((site / "config/ds-mtp.html").as_uri())
        mtp = charts(browser)
        assert [len(c["traces"]) for c in mtp] == [2, 4, 4, 4, 4]  # 3 concurrencies, a change
        assert "regression" not in str(mtp)
        browser.get((site / "regressions.html").as_uri())
        events = browser.find_elements(By.CSS_SELECTOR, "section.event")
        # day 9's event (its A/B confirmed it, still open) and the current run's suspicion
        assert [e.get_attribute("id") for e in events] == [EVENT, C64_EVENT]
        event = events[0]
        issue = event.find_element(By.CSS_SELECTOR, "li.issue a")
        assert (issue.text, issue.get_attribute("href")) == ("#12", ISSUE)
        assert event.find_element(By.CSS_SELECTOR, "li.issue").text == (
            "Tracking issue: #12 (open; opened in Benchmark #9)"
        )
        diff = [
            [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
            + [row.get_attribute("class") or ""]
            for row in event.find_elements(By.CSS_SELECTOR, "table.diff tr")[1:]
        ]
        assert diff == [
            ["image digest", "sha256:bbbbbbbbbbbb", "sha256:cccccccccccc", "changed"],
            ["SGLang", "0.5.7", "0.5.8", "changed"],
            ["SGLang commit", "-", "0f1e2d3c4b5a", "changed"],
            ["ATOM", "0.1.2.dev3+g1a2b3c4d", "0.1.3.dev7+g5e6f7a8b", "changed"],
            ["ATOM commit", "1a2b3c4d", "5e6f7a8b", "changed"],
            ["AITER", "0.1.5", "0.1.5", ""],
            ["AITER commit", "-", "-", ""],
            ["ROCm", "7.0.2", "7.0.2", ""],
            ["catalog commit", "000000000000", "000000000000", ""],
            ["runner", "runner-01", "runner-01", ""],
        ]
        ab = event.find_element(By.CSS_SELECTOR, "div.ab").text.splitlines()
        assert ab[0] == "Result: confirmed, 3 repeats of each image, parallel."
        assert ab[1].startswith("A/B: A nightly (sha256:bbbbbbbbbbbb), SGLang 0.5.7, ATOM ")
        assert ab[1].endswith(
            "against B nightly (sha256:cccccccccccc), SGLang 0.5.8, ATOM 0.1.3.dev7+g5e6f7a8b, "
            "AITER 0.1.5, ROCm 7.0.2; 12 of 12 turns measured: confirmed "
            "(output_throughput_per_gpu B/A 0.763 [0.735, 0.792] at 95%: confirmed)"
        )
        per_point = [
            [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
            for row in event.find_elements(By.CSS_SELECTOR, "table.ab-points tr")[1:]
        ]
        assert per_point == [
            # parallel, no A/A: the default noise model's two launches and one point (ab_noise.py);
            # 3% down at one point cannot be told from a 5% change on it
            ["1024x1024 c=16", "tok/s/GPU", "0.600", "[0.575, 0.626]", "confirmed"],
            ["1024x1024 c=64", "tok/s/GPU", "0.970", "[0.930, 1.012]", "inconclusive"],
        ]
        assert ab[-1] == (
            "First bad image: nightly (sha256:cccccccccccc), SGLang 0.5.8, "
            "ATOM 0.1.3.dev7+g5e6f7a8b, AITER 0.1.5, ROCm 7.0.2"
        )
        [curve] = [c for c in charts(browser) if c["id"] == f"ev-{EVENT}-0"]
        assert curve["title"] == "1024x1024: throughput per GPU vs interactivity"
        assert [(t["name"], t["text"]) for t in curve["traces"]] == [
            ("last good (Benchmark run 7008)", ["c=128", "c=64", "c=16", "c=4"]),
            ("first bad (Benchmark #9)", ["c=128", "c=64", "c=16", "c=4"]),
            ("latest (Benchmark run 7011)", ["c=128", "c=64", "c=16", "c=4"]),
            ("regression", ["regression at c=16", "regression at c=64"]),
        ]
        assert errors(browser) == []
        # The event's own page, and its last good vs first bad page.
        browser.get((site / "event" / f"{EVENT}.html").as_uri())
        [section] = browser.find_elements(By.CSS_SELECTOR, "section.event")
        assert section.find_element(By.CSS_SELECTOR, "li.triage").text == "Triage: none"
        pair = section.find_element(By.CSS_SELECTOR, "li.compare a")
        assert pair.get_attribute("href") == (site / pair_page).as_uri()
        shoot(browser, "event")
        pair.click()
        changed = [
            [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
            for row in browser.find_elements(By.CSS_SELECTOR, "table.diff tr.changed")
        ]
        assert changed[:2] == [
            ["image digest", "sha256:bbbbbbbbbbbb", "sha256:cccccccccccc"],
            ["SGLang", "0.5.7", "0.5.8"],
        ]
        deltas = [
            [cell.text for cell in row.find_elements(By.TAG_NAME, "td")][:6]
            for row in browser.find_elements(By.CSS_SELECTOR, "table.points tr")[1:3]
        ]
        assert deltas == [
            ["ds-fp8-tp8", "1024x1024", "4", "58.18", "58.74", "+1.0%"],
            ["ds-fp8-tp8", "1024x1024", "16", "201.64", "121.76", "-39.6%"],
        ]
        overlaid = charts(browser)
        assert [[t["name"] for t in c["traces"]] for c in overlaid] == [
            ["A Benchmark run 7008", "B Benchmark #9"],
            ["A Benchmark run 7008", "B Benchmark #9"],
        ]
        assert errors(browser) == []
        shoot(browser, "compare")
    shots = sorted(p.name for p in (tmp_path / "shots").iterdir())
    assert shots == ["compare.png", "config.png", "event.png", "index.png"]
    for shot in (tmp_path / "shots").iterdir():
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get(SCREENSHOTS) == "1":  # docs/screenshots, made anew
            shutil.copy(shot, ROOT / "docs" / "screenshots" / shot.name)


def test_report_out_dot_in_a_git_checkout_refuses_and_deletes_nothing(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = build(runs, tmp_path)
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
            f"error: {out}: is not empty and results report cannot prove it made it (no "
            ".sglang-ci-output.json of its own for this directory); choose a new directory\n"
        )
    assert sorted(str(p.relative_to(repo)) for p in repo.rglob("*")) == before
    assert site.is_dir()


def test_report_out_on_a_site_it_built_replaces_it_and_touches_nothing_else(
    runs: Path, tmp_path: Path
) -> None:
    site = build(runs, tmp_path)
    (tmp_path / "beside.txt").write_text("beside\n")
    first = (site / ".sglang-ci-output.json").read_text()
    around = sorted(p.name for p in tmp_path.iterdir())
    build(runs, tmp_path)
    assert "Latest run" in (site / "index.html").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == around
    assert (tmp_path / "beside.txt").read_text() == "beside\n"
    marker = json.loads((site / ".sglang-ci-output.json").read_text())
    assert marker["written_by"] == "results report"
    assert marker["directory"] == [site.stat().st_dev, site.stat().st_ino]
    assert marker["directory"] != json.loads(first)["directory"]  # a new directory each time
    assert marker["files"] == {
        str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file() and p.name != MARKER
    }
    (site / "index.html").write_text("edited since")
    refused = cli(tmp_path, "report", "--history", str(tmp_path / "history"), "--out", str(site))
    assert refused.exit_code == 2
    assert "holds index.html, which results report did not write as it is now" in refused.stderr
    assert (site / "index.html").read_text() == "edited since"


def test_the_run_after_an_ab_confirmation_reads_it_from_the_history(runs: Path) -> None:
    # Day 9's drop, confirmed by its A/B: the history keeps the A/B's outcome with day 9's
    # run (confirmation/results.json), so day 10, judged from the history alone, reports
    # the change confirmed by the A/B on day 9.
    manifest = runs / "history" / Run(day=CLEAN + 1).name / "manifest.json"
    events = json.loads(manifest.read_text())["verdicts"]["events"]
    assert [
        (e["id"], e["first_bad_run"], e["confirmed_by"], e["confirmed_in"]) for e in events
    ] == [(EVENT, Run(day=CLEAN).name, "ab", Run(day=CLEAN).name)]


def test_results_events_says_what_regressed_when_by_how_much_and_what_happened(
    runs: Path, tmp_path: Path
) -> None:
    history = tmp_path / "history"
    shutil.copytree(runs / "history", history)
    bad, good = Run(day=CLEAN).name, Run(day=CLEAN - 1).name
    result = cli(tmp_path, "events", "--history", str(history), "--since", "2026-11-10")
    assert (result.exit_code, result.stdout.splitlines()) == (0, [
        "## Events over the history: 1",
        "",
        ("| config | change [95%] | points | since | last good | state | what happened | issue "
        "| event |"),
        "|---|---|---|---|---|---|---|---|---|",
        ("| ds-fp8-tp8 | `output_throughput_per_gpu -11.4% [-13.3%, -9.5%]` | 1024x1024 c=16, "
        f"1024x1024 c=64, 1024x1024 curve | `{bad}` (2026-11-10) | `{good}` | confirmed | open "
        f"| #12 | `{EVENT}` |"),
    ])  # fmt: skip
    later = cli(tmp_path, "events", "--history", str(history), "--since", "2026-11-11")
    assert later.stdout == "## Events over the history: none\n"
    wrong = cli(tmp_path, "events", "--history", str(history), "--config", "ds-fp8")
    assert (wrong.exit_code, wrong.stderr) == (
        2, "error: no config 'ds-fp8' in the history (did you mean 'ds-fp8-tp8'?)\n",
    )  # fmt: skip
    # A person marked it invalid (infra) on its issue; the next run kept the mark.
    mark = {"event": EVENT, "issue": 12, "state": "invalid", "reason": "infra",
            "by": "alice", "at": "2026-11-12T09:00:00Z", "source": "label"}  # fmt: skip
    (history / bad / "confirmation" / "triage.json").write_text(
        json.dumps({"schema": "sglang-ci/triage/1", "run": bad, "marks": [mark]})
    )
    done = cli(tmp_path, "events", "--history", str(history), "--config", "ds-fp8-tp8", "--json")
    [event] = json.loads(done.stdout)["events"]
    assert (event["outcome"], event["happened"], event["confirmed_in"], event["runs"]) == (
        "invalid", "marked invalid (infra) by alice on 2026-11-12", bad,
        [bad, Run(day=CLEAN + 1).name],
    )  # fmt: skip
    assert event["triage"] == {**mark, "note": None}
    assert event["differences"]["sglang_commit"] == [
        "-",
        "0f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4",
    ]


def test_results_diff_puts_two_runs_side_by_side_and_refuses_a_name_it_lacks(
    runs: Path, tmp_path: Path
) -> None:
    history = str(runs / "history")
    good, bad = Run(day=CLEAN - 1).name, Run(day=CLEAN).name
    result = cli(tmp_path, "diff", good, bad, "--history", history)
    lines = result.stdout.splitlines()
    assert (result.exit_code, lines[0]) == (0, f"## `{good}` -> `{bad}`")
    assert "| **image digest** | `sha256:bbbbbbbbbbbb` | `sha256:cccccccccccc` |" in lines
    assert "| AITER | `0.1.5` | `0.1.5` |" in lines
    assert (
        "| ds-fp8-tp8 | 1024x1024 | 16 | 201.64 | 121.76 | -39.6% | 178.18 | 180.02 | +1.0% | "
        "12.55 | 12.56 | +0.1% | - | - | - |"
    ) in lines
    data = json.loads(cli(tmp_path, "diff", good, bad, "--history", history, "--json").stdout)
    assert [c["config"] for c in data["configs"]] == ["ds-fp8-tp8", "ds-mtp"]
    changed = [p["what"] for p in data["configs"][0]["provenance"] if p["changed"]]
    assert changed == ["image digest", "SGLang", "SGLang commit", "ATOM", "ATOM commit"]
    assert len(data["points"]) == 7
    near = "2026-11-10T02-00-00Z-700"
    for name, error in (
        ("nope", f"{history}: no run named 'nope'"),
        (near, f"{history}: no run named '{near}' (did you mean '{bad}'?)"),
        ("../x", "'../x': a run name is letters, digits, '.', '_' and '-' (at most 200)"),
    ):
        refused = cli(tmp_path, "diff", name, bad, "--history", history)
        assert (refused.exit_code, refused.stdout, refused.stderr) == (2, "", f"error: {error}\n")
